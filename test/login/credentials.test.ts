import { pbkdf2Sync, randomBytes } from 'node:crypto';
import { hash as argon2Hash } from '@node-rs/argon2';
import bcrypt from 'bcryptjs';
import * as client from 'openid-client';
import { SessionService } from '../../gen/portcullis/session/v2/session_service_pb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization } from '../../src/domain/org/create-organization';
import { createUser } from '../../src/domain/user/create-user';
import { startTestServer, type TestServer } from '../helpers/server';
import { REDIRECT } from '../helpers/apps';
import { Browser } from '../helpers/browser';
import { defaultOrgId, systemCtx } from '../helpers/context';
import { addRelyingParty } from '../helpers/login-flow';
import { addUser } from '../helpers/users';
import { rows } from '../helpers/rows';

describe('credentials and organization scope at login', () => {
  let server: TestServer;
  let config: client.Configuration;
  beforeAll(async () => {
    server = await startTestServer();
    config = await addRelyingParty(server);
  });
  afterAll(() => server?.stop());

  const url = (extra: Record<string, string> = {}) =>
    client
      .buildAuthorizationUrl(config, {
        redirect_uri: REDIRECT,
        scope: 'openid',
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
        ...extra,
      })
      .toString();

  it('an imported bcrypt hash verifies and is re-hashed with argon2id after login (with an event)', async () => {
    const username = `imported${Date.now()}`;
    const { id } = await createUser(systemCtx(server), {
      orgId: await defaultOrgId(server),
      username,
      human: {
        profile: { givenName: 'Im', familyName: 'Ported' },
        email: { email: `${username}@example.com`, verification: { verified: true } },
        password: { hash: bcrypt.hashSync('Legacy-Passw0rd!', 10) },
      },
    });
    await new Browser(server.url).login(url(), username, 'Legacy-Passw0rd!');
    const [user] = await rows(server, `select password_hash from users where id = '${id}'`);
    expect(user.password_hash).toMatch(/^\$argon2id\$/);
    const events = await rows(server, `select event_type from events where aggregate_id = '${id}'`);
    expect(events.map((e) => e.event_type)).toContain('user.human.password.hash.updated');
    // and the new hash works
    await new Browser(server.url).login(url({ prompt: 'login' }), username, 'Legacy-Passw0rd!');
  });

  /** passlib's form: `$pbkdf2-sha256$<rounds>$<salt>$<key>` in adapted base64 (`.` for `+`, no padding). */
  const pbkdf2Sha256 = (password: string, rounds: number) => {
    const salt = randomBytes(16);
    const ab64 = (b: Buffer) => b.toString('base64').replace(/=+$/, '').replace(/\+/g, '.');
    return `$pbkdf2-sha256$${rounds}$${ab64(salt)}$${ab64(pbkdf2Sync(password, salt, rounds, 32, 'sha256'))}`;
  };
  const importUser = async (hash: string) => {
    const username = `hash${Date.now()}${Math.random().toString(36).slice(2, 6)}`;
    const { id } = await createUser(systemCtx(server), {
      orgId: await defaultOrgId(server),
      username,
      human: {
        profile: { givenName: 'Im', familyName: 'Ported' },
        email: { email: `${username}@example.com`, verification: { verified: true } },
        password: { hash },
      },
    });
    return { id, username };
  };
  /** The stored hash now, and the payloads of the user's hash-updated events. */
  const afterLogin = async (id: string) => {
    const [user] = await rows(server, `select password_hash from users where id = '${id}'`);
    const events = await rows(
      server,
      `select payload from events where aggregate_id = '${id}' and event_type = 'user.human.password.hash.updated'`,
    );
    return {
      hash: user.password_hash as string,
      payloads: events.map((e) => (typeof e.payload === 'string' ? JSON.parse(e.payload) : e.payload)),
    };
  };

  it('login (UI, session API) re-hashes pbkdf2-sha256/weak argon2id to argon2id; event names old scheme', async () => {
    const weakArgon = () =>
      argon2Hash('Legacy-Passw0rd!', { algorithm: 2, memoryCost: 4096, timeCost: 1, parallelism: 1 });
    const cases = [
      { scheme: 'pbkdf2-sha256', hash: pbkdf2Sha256('Legacy-Passw0rd!', 27500), via: 'hosted' },
      { scheme: 'argon2id', hash: await weakArgon(), via: 'create' },
      { scheme: 'argon2id', hash: await weakArgon(), via: 'set' },
    ];
    const sessions = server.client(SessionService);
    for (const c of cases) {
      const u = await importUser(c.hash);
      // a wrong password changes nothing
      await expect(new Browser(server.url).login(url(), u.username, 'Wrong-Passw0rd!')).rejects.toThrow(
        /error=invalid/,
      );
      expect((await afterLogin(u.id)).hash).toBe(c.hash);
      if (c.via === 'hosted') await new Browser(server.url).login(url(), u.username, 'Legacy-Passw0rd!');
      if (c.via === 'create')
        await sessions.createSession({
          checks: { user: { search: { case: 'userId', value: u.id } }, password: { password: 'Legacy-Passw0rd!' } },
        });
      if (c.via === 'set') {
        const s = await sessions.createSession({
          checks: { user: { search: { case: 'loginName', value: u.username } } },
        });
        await sessions.setSession({
          sessionId: s.sessionId,
          sessionToken: s.sessionToken,
          checks: { password: { password: 'Legacy-Passw0rd!' } },
        });
      }
      const { hash, payloads } = await afterLogin(u.id);
      expect(hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
      expect(payloads).toEqual([{ previousScheme: c.scheme, scheme: 'argon2id', reason: expect.any(String) }]);
      // no hash material in the event log
      expect(JSON.stringify(payloads)).not.toContain('$');
      // the new hash verifies, and needs no further re-hash
      await sessions.createSession({
        checks: { user: { search: { case: 'userId', value: u.id } }, password: { password: 'Legacy-Passw0rd!' } },
      });
      expect((await afterLogin(u.id)).payloads).toHaveLength(1);
    }
  });

  it('the org scope limits the login to that organization and adds the org id claim', async () => {
    const { id: otherOrgId } = await createOrganization(systemCtx(server), { name: `Other ${Date.now()}`, admins: [] });
    const outsider = await addUser(server);
    const insider = await addUser(server, { orgId: otherOrgId });
    const scoped = url({ scope: `openid urn:service:iam:org:id:${otherOrgId}` });
    await expect(new Browser(server.url).login(scoped, outsider.username, outsider.password)).rejects.toThrow(
      /error=invalid/,
    );
    const landed = await new Browser(server.url).login(scoped, insider.username, insider.password);
    // RFC 7636 appendix B: the verifier of the fixed challenge above
    const tokens = await client.authorizationCodeGrant(config, new URL(landed), {
      pkceCodeVerifier: 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk',
      expectedState: client.skipStateCheck,
    });
    expect(tokens.claims()!['urn:service:iam:org:id']).toBe(otherOrgId);
  });

  it('registration sends an email verification code through the outbox', async () => {
    const b = new Browser(server.url);
    const page = await b.go(url({ prompt: 'create' }));
    const email = `reg${Date.now()}@example.com`;
    await b.submit(page, '/ui/login/register', {
      givenName: 'Reg',
      familyName: 'User',
      email,
      password: 'Regist-Passw0rd!',
      passwordConfirm: 'Regist-Passw0rd!',
    });
    const [user] = await rows(server, `select id, email_verified from users where email = '${email}'`);
    expect(user.email_verified).toBe(false);
    const mails = await rows(server, `select kind, recipient from notifications where user_id = '${user.id}'`);
    expect(mails).toEqual([{ kind: 'EMAIL_VERIFICATION', recipient: email }]);
  });
});
