import { UserService } from '../../gen/portcullis/user/v2/user_service_pb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdministrator } from '../../src/domain/administrator/manage';
import { startTestServer, type TestServer } from '../helpers/server';
import { defaultOrgId, systemCtx } from '../helpers/context';
import { addMachineWithToken } from '../helpers/machines';
import { addUser } from '../helpers/users';

describe('password hashes in the event log', () => {
  let server: TestServer;
  let viewer: { userId: string; token: string };
  let userId: string;

  beforeAll(async () => {
    server = await startTestServer();
    viewer = await addMachineWithToken(server, await defaultOrgId(server), { username: 'auditor' });
    await createAdministrator(systemCtx(server), {
      userId: viewer.userId,
      resource: { instance: true },
      roles: ['IAM_OWNER_VIEWER'],
    });
    userId = (await addUser(server)).id;
    await server.client(UserService).setPassword({ userId, newPassword: { password: 'Changed-Passw0rd!1' } });
  });
  afterAll(() => server?.stop());

  const search = async (token?: string) => {
    const res = await server.fetch('/admin/v1/events/_search', {
      method: 'POST',
      token,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ aggregate_id: userId, asc: true, limit: 100 }),
    });
    expect(res.status).toBe(200);
    const text = await res.text();
    return { text, events: JSON.parse(text).events as { type: { type: string }; payload: Record<string, unknown> }[] };
  };

  it("a read-only role never sees a hash; the instance owner sees the added user's hash", async () => {
    const asViewer = await search(viewer.token);
    expect(asViewer.events.length).toBeGreaterThanOrEqual(2);
    expect(asViewer.text).not.toMatch(/\$argon2|passwordHash/);
    const asOwner = await search();
    const added = asOwner.events.find((e) => e.type.type === 'user.human.added')!;
    expect(String(added.payload.passwordHash)).toMatch(/^\$argon2id\$/);
  });

  it('a password change records no hash at all, for anyone', async () => {
    const asOwner = await search();
    const changed = asOwner.events.find((e) => e.type.type === 'user.human.password.changed')!;
    expect(changed).toBeDefined();
    expect(changed.payload).not.toHaveProperty('passwordHash');
  });
});
