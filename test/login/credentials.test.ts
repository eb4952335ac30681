import bcrypt from 'bcryptjs';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization } from '../../src/domain/org/create-organization';
import { createUser } from '../../src/domain/user/commands';
import { startTestServer, type TestServer } from '../helpers/server';
import { addOidcApp, addProject, addUser, Browser, defaultOrg, REDIRECT, rp, systemCtx } from '../oidc/helpers';

const rows = async (server: TestServer, sql: string) => {
  const r = await server.app.database.db.execute(sql);
  return ((r as any).rows ?? r) as Record<string, any>[];
};

describe('credentials and organization scope at login', () => {
  let server: TestServer;
  let config: client.Configuration;
  beforeAll(async () => {
    server = await startTestServer();
    const app = await addOidcApp(server, await addProject(server));
    config = await rp(server, app.clientId, app.clientSecret);
  });
  afterAll(() => server?.stop());

  const url = (extra: Record<string, string> = {}) =>
    client
      .buildAuthorizationUrl(config, { redirect_uri: REDIRECT, scope: 'openid', code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256', ...extra })
      .toString();

  it('an imported bcrypt hash verifies and is re-hashed with argon2id after login (with an event)', async () => {
    const username = `imported${Date.now()}`;
    const { id } = await createUser(systemCtx(server), {
      orgId: await defaultOrg(server),
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

  it('the org scope limits the login to that organization and adds the org id claim', async () => {
    const { id: otherOrgId } = await createOrganization(systemCtx(server), { name: `Other ${Date.now()}`, admins: [] });
    const outsider = await addUser(server);
    const insider = await addUser(server, { orgId: otherOrgId });
    const scoped = url({ scope: `openid urn:service:iam:org:id:${otherOrgId}` });
    await expect(new Browser(server.url).login(scoped, outsider.username, outsider.password)).rejects.toThrow(/error=invalid/);
    const landed = await new Browser(server.url).login(scoped, insider.username, insider.password);
    // RFC 7636 appendix B: the verifier of the fixed challenge above
    const tokens = await client.authorizationCodeGrant(config, new URL(landed), { pkceCodeVerifier: 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk', expectedState: client.skipStateCheck });
    expect(tokens.claims()!['urn:service:iam:org:id']).toBe(otherOrgId);
  });

  it('registration sends an email verification code through the outbox', async () => {
    const b = new Browser(server.url);
    const page = await b.go(url({ prompt: 'create' }));
    const email = `reg${Date.now()}@example.com`;
    await b.submit(page, '/ui/login/register', { givenName: 'Reg', familyName: 'User', email, password: 'Regist-Passw0rd!', passwordConfirm: 'Regist-Passw0rd!' });
    const [user] = await rows(server, `select id, email_verified from users where email = '${email}'`);
    expect(user.email_verified).toBe(false);
    const mails = await rows(server, `select kind, recipient from notifications where user_id = '${user.id}'`);
    expect(mails).toEqual([{ kind: 'EMAIL_VERIFICATION', recipient: email }]);
  });
});
