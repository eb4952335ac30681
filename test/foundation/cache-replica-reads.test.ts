import { describe, expect, it } from 'vitest';
import { Runtime } from '../../src/deps';
import { defineCache, whileReadingReplica } from '../../src/domain/cache';

/**
 * A read served by a read replica may be behind the primary. Were a cache filled from it after a change
 * had evicted the entry, every later reader (the login and the OIDC layer included) would get the old
 * value until the entry's maximum age: so what a replica read loads is used once and not kept.
 */
describe('caches during a read from a replica', () => {
  it('keep nothing the replica read loaded, and still answer what the primary filled', async () => {
    const cache = new Runtime().get(defineCache<string>('test-replica'));
    let loads = 0;
    const fromReplica = await whileReadingReplica(() => cache.get('k', async () => `replica ${++loads}`));
    expect(fromReplica).toBe('replica 1');
    // outside the replica read the entry is loaded again: the replica's value was not kept
    expect(await cache.get('k', async () => `primary ${++loads}`)).toBe('primary 2');
    // a replica read is answered from the entry the primary filled
    expect(await whileReadingReplica(() => cache.get('k', async () => `replica ${++loads}`))).toBe('primary 2');
    expect(loads).toBe(2);
  });
});
