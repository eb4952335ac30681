import { Code } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UserService } from '../../gen/portcullis/user/v2/user_service_pb';
import { SessionService } from '../../gen/portcullis/session/v2/session_service_pb';
import { updateInstanceSettings } from '../../src/domain/instance/update-settings';
import { startTestServer, type TestServer } from '../helpers/server';
import { systemCtx } from '../helpers/context';
import { addUser, PASSWORD } from '../helpers/users';

const MAX = 3;

// The guesses race as concurrent requests; the count is kept by a row lock in the database, which
// is what makes it hold across worker processes and replicas too (CI runs this on PostgreSQL as well).
describe('lockout that holds', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
    await updateInstanceSettings(systemCtx(server), { lockoutMaxPasswordAttempts: MAX });
  });
  afterAll(() => server?.stop());

  const attempt = (userId: string, password: string) =>
    server
      .client(SessionService)
      .createSession({ checks: { user: { search: { case: 'userId', value: userId } }, password: { password } } })
      .then(
        () => ({ ok: true, code: undefined as Code | undefined, message: '' }),
        (e) => ({ ok: false, code: e.code as Code, message: e.rawMessage as string }),
      );

  it('concurrent wrong guesses cannot pass the limit, and a correct guess after it never signs in', async () => {
    const user = await addUser(server);
    const guesses = await Promise.all(Array.from({ length: 12 }, (_, i) => attempt(user.id, `wrong-${i}`)));
    expect(guesses.every((g) => !g.ok)).toBe(true);
    const right = await attempt(user.id, PASSWORD);
    expect(right.ok).toBe(false);
    const { user: after } = await server.client(UserService).getUserByID({ userId: user.id });
    expect(after?.state).toBe(3); // LOCKED
    const res = await server.fetch('/admin/v1/events/_search', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        aggregateId: user.id,
        eventTypes: ['user.human.password.check.failed', 'user.locked'],
        limit: 100,
      }),
    });
    const events = ((await res.json()) as { events: { type: { type: string } }[] }).events.map((e) => e.type.type);
    expect(events.filter((t) => t === 'user.human.password.check.failed').length).toBeLessThanOrEqual(MAX);
    expect(events.filter((t) => t === 'user.locked')).toHaveLength(1);
  });

  it('a locked account answers right and wrong passwords the same', async () => {
    const user = await addUser(server);
    await server.client(UserService).lockUser({ userId: user.id });
    const right = await attempt(user.id, PASSWORD);
    const wrong = await attempt(user.id, 'Wrong-Passw0rd!');
    expect(right).toEqual(wrong);
    expect(right.ok).toBe(false);
  });

  it('a correct guess before the limit resets the count', async () => {
    const user = await addUser(server);
    await attempt(user.id, 'wrong-1');
    await attempt(user.id, 'wrong-2');
    expect((await attempt(user.id, PASSWORD)).ok).toBe(true);
    await attempt(user.id, 'wrong-3');
    expect((await attempt(user.id, PASSWORD)).ok).toBe(true);
  });
});
