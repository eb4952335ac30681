import { describe, expect, it } from 'vitest';
import { AGGREGATE_TYPES, EVENT_TYPES, eventTypes } from '../../src/domain/events/registry';
import type { UnitOfWork } from '../../src/domain/execute';
import { EVENT_TYPE_NAMES } from '../../src/domain/events/names';

describe('event registry', () => {
  it('declares for every event type its aggregate and, where v1 names it, an English and a German name', () => {
    expect(eventTypes.length).toBeGreaterThan(100);
    for (const type of eventTypes) {
      const { aggregate, names } = EVENT_TYPES[type];
      const aggregates = typeof aggregate === 'string' ? [aggregate] : aggregate;
      expect(aggregates.length, type).toBeGreaterThan(0);
      for (const a of aggregates) expect(Object.keys(AGGREGATE_TYPES), type).toContain(a);
      if (names === null) continue;
      const [en, de] = names;
      expect(en.trim(), type).not.toBe('');
      expect(de.trim(), type).not.toBe('');
      expect(EVENT_TYPE_NAMES[type], type).toEqual(names);
    }
  });

  it('names each type after its aggregate family, dotted and lowercase', () => {
    for (const type of eventTypes) expect(type).toMatch(/^[a-z_]+(\.[a-z_]+)+$/);
  });

  it('makes an unregistered type or a misspelt payload key a compile error', () => {
    const pushes = (work: UnitOfWork) => {
      // @ts-expect-error a type the registry does not declare
      work.push({ aggregateType: 'user', aggregateId: 'u', type: 'user.lokced', resourceOwner: 'o' });
      work.push({
        aggregateType: 'user',
        aggregateId: 'u',
        type: 'user.removed',
        // @ts-expect-error user.removed carries userName
        payload: { username: 'x' },
        resourceOwner: 'o',
      });
    };
    expect(pushes).toBeTypeOf('function');
  });
});
