import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdministrator } from '../../src/domain/administrator/manage';
import { updateInstanceSettings } from '../../src/domain/instance/update-settings';
import { startTestServer, type TestServer } from '../helpers/server';
import { addApiApp, addOidcApp, addProject } from '../helpers/apps';
import { defaultOrgId, systemCtx } from '../helpers/context';
import { audScope, decodePayload, TOKEN_EXCHANGE, TT } from '../helpers/jwt-grants';
import { codeFlowTokens, rp } from '../helpers/login-flow';
import { addMachine, machineConfig } from '../helpers/machines';
import { addUser } from '../helpers/users';

/** A refresh token issued by an impersonating token exchange keeps the actor on every refresh. */
describe('impersonation and refresh', () => {
  let server: TestServer;
  let appConfig: client.Configuration;
  let apiConfig: client.Configuration;
  let subject: Awaited<ReturnType<typeof addUser>>;
  let actor: Awaited<ReturnType<typeof addMachine>>;
  let subjectToken: string;
  let actorToken: string;
  beforeAll(async () => {
    server = await startTestServer();
    const ctx = systemCtx(server);
    await updateInstanceSettings(ctx, { impersonationAllowed: true });
    const project = await addProject(server);
    const app = await addOidcApp(server, project, {
      grantTypes: ['AUTHORIZATION_CODE', 'REFRESH_TOKEN', 'TOKEN_EXCHANGE'],
      accessTokenType: 'JWT',
    });
    const api = await addApiApp(server, project);
    appConfig = await rp(server, app.clientId, app.clientSecret, client.ClientSecretBasic(app.clientSecret!));
    apiConfig = await rp(server, api.clientId, api.clientSecret, client.ClientSecretBasic(api.clientSecret));
    // the subject signed in with offline_access: only then may an exchange bring a refresh token
    subject = await addUser(server);
    actor = await addMachine(server, { accessTokenType: 'JWT' });
    await createAdministrator(ctx, {
      userId: actor.id,
      resource: { orgId: await defaultOrgId(server) },
      roles: ['ORG_IMPERSONATOR'],
    });
    const scope = `openid profile ${audScope(project)}`;
    subjectToken = (await codeFlowTokens(server, appConfig, subject)).tokens.access_token;
    actorToken = (await client.clientCredentialsGrant(await machineConfig(server, actor), { scope })).access_token;
  });
  afterAll(() => server?.stop());

  const exchange = (extra: Record<string, string> = {}) =>
    client.genericGrantRequest(appConfig, TOKEN_EXCHANGE, {
      subject_token: subjectToken,
      subject_token_type: TT.access,
      scope: 'openid profile offline_access',
      ...extra,
    });

  it('refreshed access and ID tokens keep act (JWT and introspection), through several rotations', async () => {
    const first = await exchange({
      actor_token: actorToken,
      actor_token_type: TT.access,
      requested_token_type: TT.jwt,
    });
    expect(decodePayload(first.access_token).act).toEqual({
      sub: actor.id,
      client_id: appConfig.clientMetadata().client_id,
    });
    let refreshToken = first.refresh_token!;
    for (let i = 0; i < 2; i++) {
      const next = await client.refreshTokenGrant(appConfig, refreshToken);
      expect(decodePayload(next.access_token)).toMatchObject({
        sub: subject.id,
        act: { sub: actor.id, client_id: appConfig.clientMetadata().client_id },
      });
      expect(decodePayload(next.id_token!)).toMatchObject({ sub: subject.id, act: { sub: actor.id } });
      expect(await client.tokenIntrospection(apiConfig, next.access_token)).toMatchObject({
        active: true,
        sub: subject.id,
        act: { sub: actor.id },
      });
      refreshToken = next.refresh_token!;
    }
  });

  it('without an actor the refreshed tokens carry no act', async () => {
    const first = await exchange();
    const next = await client.refreshTokenGrant(appConfig, first.refresh_token!);
    expect(decodePayload(next.access_token).act).toBeUndefined();
    expect((await client.tokenIntrospection(apiConfig, next.access_token)).act).toBeUndefined();
  });
});
