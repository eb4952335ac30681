import { Code, type ConnectError } from '@connectrpc/connect';
import type * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionService } from '../../../gen/portcullis/session/v2/session_service_pb';
import { UserService } from '../../../gen/portcullis/user/v2/user_service_pb';
import { addRelyingParty, codeFlowTokens } from '../../helpers/login-flow';
import { rows } from '../../helpers/rows';
import { startTestServer, type TestServer } from '../../helpers/server';
import { addUser } from '../../helpers/users';

const codeOf = (p: Promise<unknown>): Promise<Code | 'ok'> =>
  p.then(
    () => 'ok' as const,
    (e: ConnectError) => e.code,
  );

/** The account page's self-service: a user's own sessions, profile and applications, never another user's. */
describe('self-service: own sessions, profile and authorized applications', () => {
  let server: TestServer;
  let config: client.Configuration;
  beforeAll(async () => {
    server = await startTestServer();
    config = await addRelyingParty(server, { basicAuth: true, apiClient: true });
  });
  afterAll(() => server?.stop());

  /** A user signed in through the hosted login: the access token and the login session behind it. */
  async function signedIn(user: { username: string; password: string }, scope = '') {
    const { tokens } = await codeFlowTokens(server, config, user, {
      scope: `openid urn:service:iam:org:project:id:api:aud${scope}`,
    });
    return { token: tokens.access_token, sessionId: String(tokens.claims()?.sid) };
  }

  it('a user lists and ends their own sessions; the other user’s stay out of reach', async () => {
    const a = await addUser(server);
    const b = await addUser(server);
    const a1 = await signedIn(a);
    const a2 = await signedIn(a);
    const b1 = await signedIn(b);
    const mine = server.client(SessionService, { token: a1.token });

    const list = await mine.listSessions({ userId: a.id });
    expect(list.sessions.map((s) => s.id).sort()).toEqual([a1.sessionId, a2.sessionId].sort());
    // each says where it signed in from: the browser's User-Agent, its address, the application
    for (const s of list.sessions) {
      expect(s.userAgent).toBeTruthy();
      expect(s.ipAddress).toBe('127.0.0.1');
      expect(s.clientId).toBe(config.clientMetadata().client_id);
      const [app] = await rows(server, `select name from applications where client_id = '${s.clientId}'`);
      expect(s.applicationName).toBe(app.name);
    }
    // another user's sessions, or everyone's: the login UI's permission only
    expect(await codeOf(mine.listSessions({ userId: b.id }))).toBe(Code.PermissionDenied);
    expect(await codeOf(mine.listSessions({}))).toBe(Code.PermissionDenied);
    expect(await codeOf(mine.deleteSession({ sessionId: b1.sessionId }))).toBe(Code.PermissionDenied);
    expect(await codeOf(mine.deleteSession({ sessionId: 'no-such-session' }))).toBe(Code.PermissionDenied);
    expect(await codeOf(mine.getSession({ sessionId: a2.sessionId }))).toBe(Code.PermissionDenied);
    const [bs] = await rows(server, `select terminated_at from sessions where id = '${b1.sessionId}'`);
    expect(bs.terminated_at).toBeNull();

    await mine.deleteSession({ sessionId: a2.sessionId });
    expect((await mine.listSessions({ userId: a.id })).sessions.map((s) => s.id)).toEqual([a1.sessionId]);
    // the ended session's token no longer works
    const ended = server.client(UserService, { token: a2.token });
    expect(await codeOf(ended.getUserByID({ userId: a.id }))).toBe(Code.Unauthenticated);
  });

  it('a user changes their own profile and phone, but not their username, nor another user’s profile', async () => {
    const a = await addUser(server);
    const b = await addUser(server);
    const users = server.client(UserService, { token: (await signedIn(a)).token });
    await users.updateUser({
      userId: a.id,
      userType: {
        case: 'human',
        value: { profile: { displayName: 'Countess', preferredLanguage: 'de' }, phone: { phone: '+41790000000' } },
      },
    });
    const [row] = await rows(
      server,
      `select display_name, preferred_language, phone_verified from users
      where id = '${a.id}'`,
    );
    expect(row).toEqual({ display_name: 'Countess', preferred_language: 'de', phone_verified: false });

    expect(await codeOf(users.updateUser({ userId: a.id, username: 'renamed' }))).toBe(Code.PermissionDenied);
    const verified = users.updateUser({
      userId: a.id,
      userType: {
        case: 'human',
        value: { phone: { phone: '+41790000001', verification: { case: 'isVerified', value: true } } },
      },
    });
    expect(await codeOf(verified)).toBe(Code.PermissionDenied);
    const theirs = users.updateUser({
      userId: b.id,
      userType: { case: 'human', value: { profile: { displayName: 'Hijacked' } } },
    });
    expect(await codeOf(theirs)).toBe(Code.NotFound);
    const [other] = await rows(server, `select display_name from users where id = '${b.id}'`);
    expect(other.display_name).not.toBe('Hijacked');
  });

  it('a user lists the applications they authorized; another user’s list stays out of reach', async () => {
    const a = await addUser(server);
    const b = await addUser(server);
    const mine = await signedIn(a, ' profile');
    await signedIn(a, ' email');
    await signedIn(b);
    const users = server.client(UserService, { token: mine.token });
    const { applications } = await users.listAuthorizedApplications({ userId: a.id });
    const [app] = await rows(
      server,
      `select id, name, client_id from applications where client_id = '${config.clientMetadata().client_id}'`,
    );
    expect(applications.map((x) => [x.applicationId, x.name, x.clientId])).toEqual([[app.id, app.name, app.client_id]]);
    expect(applications[0].scopes).toEqual(expect.arrayContaining(['email', 'openid', 'profile']));
    expect(await codeOf(users.listAuthorizedApplications({ userId: b.id }))).toBe(Code.NotFound);

    // a grant ended with its session is no longer listed
    await server.client(SessionService, { token: mine.token }).deleteSession({ sessionId: mine.sessionId });
    const after = await server.client(UserService).listAuthorizedApplications({ userId: a.id });
    expect(after.applications[0].scopes).not.toContain('profile');
  });
});
