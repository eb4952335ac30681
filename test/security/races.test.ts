import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server';
import { addApiApp, addOidcApp, addProject, REDIRECT } from '../helpers/apps';
import { basic, postForm } from '../helpers/forms';
import { codeFlowTokens, getCode, rp } from '../helpers/login-flow';
import { addUser } from '../helpers/users';

const ROUNDS = 8;

/**
 * Replays that race the winning request. On PostgreSQL (CI's second run) the two requests really run
 * at the same time on separate connections; on PGlite they interleave. Either way, once both are
 * answered, no token of the attacked grant may be active.
 */
describe('token races', () => {
  let server: TestServer;
  let app: Awaited<ReturnType<typeof addOidcApp>>;
  let config: client.Configuration;
  let api: client.Configuration;

  beforeAll(async () => {
    server = await startTestServer();
    const project = await addProject(server);
    app = await addOidcApp(server, project);
    config = await rp(server, app.clientId, app.clientSecret, client.ClientSecretBasic(app.clientSecret!));
    const a = await addApiApp(server, project);
    api = await rp(server, a.clientId, a.clientSecret, client.ClientSecretBasic(a.clientSecret));
  });
  afterAll(() => server?.stop());

  const token = (form: Record<string, string>) =>
    postForm(server, '/oauth/v2/token', form, { authorization: basic(app.clientId, app.clientSecret!) }).then(
      async (r) => (await r.json()) as { access_token?: string; refresh_token?: string; error?: string },
    );
  const active = async (t: string) => (await client.tokenIntrospection(api, t)).active;

  it('a replayed code leaves no access token of the grant active, whoever wins', async () => {
    const user = await addUser(server);
    for (let i = 0; i < ROUNDS; i++) {
      const { code, verifier } = await getCode(server, config, user);
      const form = { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier };
      const answers = await Promise.all([token(form), token(form)]);
      expect(answers.filter((a) => a.error === 'invalid_grant').length, `round ${i}`).toBeGreaterThanOrEqual(1);
      for (const a of answers) if (a.access_token) expect(await active(a.access_token), `round ${i}`).toBe(false);
    }
  });

  it('a reused refresh token leaves no token of the grant active, whoever wins', async () => {
    const user = await addUser(server);
    for (let i = 0; i < ROUNDS; i++) {
      const { tokens } = await codeFlowTokens(server, config, user);
      const form = { grant_type: 'refresh_token', refresh_token: tokens.refresh_token! };
      const answers = await Promise.all([token(form), token(form)]);
      for (const a of answers) {
        if (a.access_token) expect(await active(a.access_token), `round ${i}`).toBe(false);
        if (a.refresh_token)
          expect(
            (await token({ grant_type: 'refresh_token', refresh_token: a.refresh_token })).error,
            `round ${i}`,
          ).toBe('invalid_grant');
      }
    }
  });

  it('revoking a refresh token while it is being used leaves nothing of the grant active', async () => {
    const user = await addUser(server);
    for (let i = 0; i < ROUNDS; i++) {
      const { tokens } = await codeFlowTokens(server, config, user);
      const [refreshed] = await Promise.all([
        token({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token! }),
        client.tokenRevocation(config, tokens.refresh_token!, { token_type_hint: 'refresh_token' }),
      ]);
      expect(await active(tokens.access_token), `round ${i}`).toBe(false);
      if (refreshed.access_token) expect(await active(refreshed.access_token), `round ${i}`).toBe(false);
    }
  });
});
