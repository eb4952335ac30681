import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineCache, invalidateAfterCommit } from '../../src/domain/cache';
import { execute } from '../../src/domain/execute';
import { systemCtx } from '../helpers/context';
import { addRelyingParty, codeFlowTokens } from '../helpers/login-flow';
import { startTestServer, type TestServer } from '../helpers/server';
import { addUser } from '../helpers/users';

/**
 * Each server keeps its caches, queues and registrations in a runtime of its own (src/deps.ts). Two servers
 * started in one process — as the tests start them, each with a database of its own — must not answer
 * from what the other remembered: a token the one has looked up and cached is still unknown to the other,
 * and an eviction at the one leaves the other's entries alone.
 */
describe('two servers in one process', () => {
  let a: TestServer;
  let b: TestServer;
  beforeAll(async () => {
    [a, b] = await Promise.all([startTestServer(), startTestServer()]);
  }, 120_000);
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
  });

  const getInstance = (server: TestServer, token: string) =>
    server.fetch('/portcullis.instance.v2.InstanceService/GetInstance', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
      token,
    });

  it("refuse each other's admin token, also once it is cached where it belongs", async () => {
    // twice each: the second call is answered from the server's PAT and principal caches
    for (let i = 0; i < 2; i++) {
      expect((await getInstance(a, a.pat)).status).toBe(200);
      expect((await getInstance(b, b.pat)).status).toBe(200);
    }
    expect((await getInstance(b, a.pat)).status).toBe(401);
    expect((await getInstance(a, b.pat)).status).toBe(401);
  });

  it('do not find an access token at the other server after one of them looked it up', async () => {
    const user = await addUser(a);
    const { tokens } = await codeFlowTokens(a, await addRelyingParty(a), user);
    const userinfo = (server: TestServer) =>
      fetch(`${server.url}/oidc/v1/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    const own = await userinfo(a);
    expect(own.status).toBe(200);
    expect((await own.json()).sub).toBe(user.id);
    expect((await userinfo(a)).status).toBe(200);
    expect((await userinfo(b)).status).toBe(401);
    // nor does the other server's API take it
    expect((await getInstance(b, tokens.access_token)).status).toBe(401);
  });

  it("evict only their own cache entries: an invalidation at one leaves the other's", async () => {
    const probe = defineCache<string>('runtime-isolation-probe');
    const load = (server: TestServer, value: string) =>
      server.app.deps.runtime.get(probe).get('key', async () => value);
    expect(await load(a, 'a1')).toBe('a1');
    expect(await load(b, 'b1')).toBe('b1');
    // a command at A evicts the entry there at once and, on PostgreSQL, in every process listening to A's database
    await execute(systemCtx(a), (work) => invalidateAfterCommit(work, 'runtime-isolation-probe', 'key'));
    expect(await load(a, 'a2')).toBe('a2');
    expect(await load(b, 'b2')).toBe('b1');
  });
});
