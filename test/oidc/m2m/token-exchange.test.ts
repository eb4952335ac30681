import { createPrivateKey, randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApplicationKey } from '../../../src/domain/application/keys';
import { createAdministrator } from '../../../src/domain/administrator/manage';
import { updateInstanceSettings } from '../../../src/domain/instance/update-settings';
import { startTestServer, type TestServer } from '../../helpers/server';
import { addApiApp, addOidcApp, addProject } from '../../helpers/apps';
import { defaultOrgId, systemCtx } from '../../helpers/context';
import { basic, postFormJson } from '../../helpers/forms';
import { assertion, audScope, decodePayload, JWT_BEARER, TOKEN_EXCHANGE, TT } from '../../helpers/jwt-grants';
import { codeFlowTokens, rp } from '../../helpers/login-flow';
import { addMachine, machineConfig } from '../../helpers/machines';
import { addUser } from '../../helpers/users';

describe('token exchange (§2.8 matrix, impersonation)', () => {
  let server: TestServer;
  let project: string;
  let app: Awaited<ReturnType<typeof addOidcApp>>;
  let keyApp: Awaited<ReturnType<typeof addOidcApp>> & { keyId: string; key: string };
  let appConfig: client.Configuration;
  let apiConfig: client.Configuration;
  let subject: Awaited<ReturnType<typeof addMachine>>;
  let actor: Awaited<ReturnType<typeof addMachine>>;
  let outsider: Awaited<ReturnType<typeof addMachine>>;
  const tokens: Record<string, string> = {};
  let human: Awaited<ReturnType<typeof addUser>>;

  beforeAll(async () => {
    server = await startTestServer();
    const ctx = systemCtx(server);
    await updateInstanceSettings(ctx, { impersonationAllowed: true });
    project = await addProject(server);
    app = await addOidcApp(server, project, { grantTypes: ['AUTHORIZATION_CODE', 'REFRESH_TOKEN', 'TOKEN_EXCHANGE'] });
    const k = await addOidcApp(server, project, { grantTypes: ['TOKEN_EXCHANGE'], authMethodType: 'PRIVATE_KEY_JWT' });
    const key = await createApplicationKey(ctx, { applicationId: k.applicationId });
    keyApp = { ...k, keyId: key.keyId, key: key.keyFile.key };
    const api = await addApiApp(server, project);
    appConfig = await rp(server, app.clientId, app.clientSecret, client.ClientSecretBasic(app.clientSecret!));
    apiConfig = await rp(server, api.clientId, api.clientSecret, client.ClientSecretBasic(api.clientSecret));
    subject = await addMachine(server, { accessTokenType: 'JWT' });
    const opaqueSubject = await addMachine(server);
    actor = await addMachine(server, { accessTokenType: 'JWT' });
    outsider = await addMachine(server, { accessTokenType: 'JWT' });
    await createAdministrator(ctx, {
      userId: actor.id,
      resource: { orgId: await defaultOrgId(server) },
      roles: ['ORG_IMPERSONATOR'],
    });
    const scope = `openid profile ${audScope(project)}`;
    tokens.subjectJwt = (
      await client.clientCredentialsGrant(await machineConfig(server, subject), { scope })
    ).access_token;
    tokens.subjectOpaque = (
      await client.clientCredentialsGrant(await machineConfig(server, opaqueSubject), { scope })
    ).access_token;
    tokens.subjectIdToken = (
      await postFormJson(server, '/oauth/v2/token', {
        grant_type: JWT_BEARER,
        assertion: await assertion(server, subject),
        scope,
      })
    ).body.id_token;
    tokens.actor = (await client.clientCredentialsGrant(await machineConfig(server, actor), { scope })).access_token;
    tokens.actorIdToken = (
      await postFormJson(server, '/oauth/v2/token', {
        grant_type: JWT_BEARER,
        assertion: await assertion(server, actor),
        scope,
      })
    ).body.id_token;
    human = await addUser(server);
    tokens.userWithOffline = (await codeFlowTokens(server, appConfig, human)).tokens.access_token;
    tokens.outsider = (
      await client.clientCredentialsGrant(await machineConfig(server, outsider), { scope })
    ).access_token;
  });
  afterAll(() => server?.stop());

  const exchange = (params: Record<string, string>) => client.genericGrantRequest(appConfig, TOKEN_EXCHANGE, params);
  const raw = (params: Record<string, string>, auth = basic(app.clientId, app.clientSecret!)) =>
    postFormJson(server, '/oauth/v2/token', { grant_type: TOKEN_EXCHANGE, ...params }, { authorization: auth });

  describe('allowed', () => {
    it('access token (JWT) → default: an opaque access token, issued_token_type access_token', async () => {
      const r = await exchange({ subject_token: tokens.subjectJwt, subject_token_type: TT.access, scope: 'profile' });
      expect(r.issued_token_type).toBe(TT.access);
      expect(r.token_type).toBe('bearer');
      expect(r.access_token.split('.').length).not.toBe(3);
      expect(r.scope).toBe('profile');
      const info = await client.tokenIntrospection(apiConfig, r.access_token);
      expect(info).toMatchObject({ active: true, sub: subject.id, client_id: app.clientId });
      expect(info.act).toBeUndefined();
    });

    it('access token (opaque) → requested jwt: an access token as JWT', async () => {
      const r = await exchange({
        subject_token: tokens.subjectOpaque,
        subject_token_type: TT.access,
        requested_token_type: TT.jwt,
      });
      expect(r.issued_token_type).toBe(TT.jwt);
      expect(decodePayload(r.access_token).client_id).toBe(app.clientId);
      expect(r.id_token).toBeDefined();
    });

    it('id_token → requested id_token: token_type N_A', async () => {
      const r = await raw({
        subject_token: tokens.subjectIdToken,
        subject_token_type: TT.id,
        requested_token_type: TT.id,
      });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ token_type: 'N_A', issued_token_type: TT.id });
      expect(decodePayload(r.body.access_token)).toMatchObject({
        sub: subject.id,
        aud: expect.arrayContaining([app.clientId]),
      });
    });

    it('offline_access is not granted when the subject token did not carry it', async () => {
      const r = await raw({
        subject_token: tokens.subjectJwt,
        subject_token_type: TT.access,
        scope: 'openid offline_access',
      });
      expect(r.status).toBe(400);
      expect(r.body.error).toBe('invalid_scope');
    });

    it('offline_access brings a refresh token when the subject carried it, openid an ID token', async () => {
      const r = await exchange({
        subject_token: tokens.userWithOffline,
        subject_token_type: TT.access,
        scope: 'openid offline_access',
      });
      expect(r.refresh_token).toBeDefined();
      expect(decodePayload(r.id_token!).sub).toBe(human.id);
      const refreshed = await client.refreshTokenGrant(appConfig, r.refresh_token!);
      expect((await client.tokenIntrospection(apiConfig, refreshed.access_token)).sub).toBe(human.id);
    });

    it('impersonation with an actor access token: act claim, event user.impersonated', async () => {
      const r = await exchange({
        subject_token: tokens.subjectJwt,
        subject_token_type: TT.access,
        actor_token: tokens.actor,
        actor_token_type: TT.access,
        requested_token_type: TT.jwt,
        scope: 'openid profile',
      });
      expect(decodePayload(r.access_token)).toMatchObject({ sub: subject.id, act: { sub: actor.id } });
      expect(decodePayload(r.id_token!)).toMatchObject({ sub: subject.id, act: { sub: actor.id } });
      const events = await server.fetch('/admin/v1/events/_search', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ event_types: ['user.impersonated'], asc: true, limit: 100 }),
      });
      const found = (await events.json()).events as { aggregate: { id: string } }[];
      expect(found.some((e) => e.aggregate.id === subject.id)).toBe(true);
    });

    it('user_id subject with an actor id token; opaque result introspects with act', async () => {
      const r = await exchange({
        subject_token: subject.id,
        subject_token_type: TT.userId,
        actor_token: tokens.actorIdToken,
        actor_token_type: TT.id,
      });
      const info = await client.tokenIntrospection(apiConfig, r.access_token);
      expect(info).toMatchObject({ active: true, sub: subject.id, act: { sub: actor.id } });
    });

    it('jwt subject signed by the client (private_key_jwt client) with an actor token', async () => {
      const key = createPrivateKey(keyApp.key);
      const now = Math.floor(Date.now() / 1000);
      const sign = (claims: Record<string, unknown>) =>
        new SignJWT({ iat: now, exp: now + 300, jti: randomUUID(), aud: server.url, ...claims })
          .setProtectedHeader({ alg: 'RS256', kid: keyApp.keyId })
          .sign(key);
      const r = await postFormJson(server, '/oauth/v2/token', {
        grant_type: TOKEN_EXCHANGE,
        client_id: keyApp.clientId,
        client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
        client_assertion: await sign({ iss: keyApp.clientId, sub: keyApp.clientId }),
        subject_token: await sign({ iss: keyApp.clientId, sub: subject.id }),
        subject_token_type: TT.jwt,
        actor_token: tokens.actor,
        actor_token_type: TT.access,
        requested_token_type: TT.jwt,
      });
      expect(r.status).toBe(200);
      expect(decodePayload(r.body.access_token)).toMatchObject({
        sub: subject.id,
        act: { sub: actor.id },
        client_id: keyApp.clientId,
      });
    });
  });

  describe('not allowed', () => {
    const base = () => ({ subject_token: tokens.subjectJwt, subject_token_type: TT.access });
    it.each([
      ['subject refresh_token', { subject_token: 'x', subject_token_type: TT.refresh }],
      ['subject jwt without actor', { subject_token: 'a.b.c', subject_token_type: TT.jwt }],
      ['subject user_id without actor', { subject_token: '123', subject_token_type: TT.userId }],
      ['unknown subject type', { subject_token: 'x', subject_token_type: 'urn:example:other' }],
      ['actor refresh_token', { actor_token: 'x', actor_token_type: TT.refresh }],
      ['actor jwt', { actor_token: 'a.b.c', actor_token_type: TT.jwt }],
      ['actor user_id', { actor_token: '123', actor_token_type: TT.userId }],
      ['actor_token without type', { actor_token: 'x' }],
      ['requested refresh_token', { requested_token_type: TT.refresh }],
      ['requested user_id', { requested_token_type: TT.userId }],
      ['resource', { resource: 'https://api.example.com' }],
      ['missing subject_token', { subject_token: '' }],
    ])('%s → invalid_request', async (_name, extra) => {
      const r = await raw({ ...base(), ...extra });
      expect(r.status).toBe(400);
      expect(r.body.error).toBe('invalid_request');
    });

    it('audience escalation → invalid_target; a narrower audience is fine', async () => {
      const foreign = await addProject(server);
      const r = await raw({ ...base(), audience: foreign });
      expect(r.body.error).toBe('invalid_target');
      const ok = await raw({ ...base(), audience: project });
      expect(ok.status).toBe(200);
    });

    it('scope escalation → invalid_scope', async () => {
      expect((await raw({ ...base(), scope: 'openid email' })).body.error).toBe('invalid_scope');
    });

    it('an invalid or revoked subject token → invalid_grant', async () => {
      expect((await raw({ subject_token: 'pcm_garbage', subject_token_type: TT.access })).body.error).toBe(
        'invalid_grant',
      );
      expect((await raw({ subject_token: tokens.subjectJwt, subject_token_type: TT.id })).body.error).toBe(
        'invalid_grant',
      );
    });

    it('impersonation without the permission is refused', async () => {
      const r = await raw({ ...base(), actor_token: tokens.outsider, actor_token_type: TT.access });
      expect(r.status).toBe(400);
      expect(r.body.error_description).toMatch(/impersonation/);
    });

    it('without TOKEN_EXCHANGE grant → unauthorized_client; client outside the audience → invalid_grant', async () => {
      const plain = await addOidcApp(server, project);
      expect((await raw(base(), basic(plain.clientId, plain.clientSecret!))).body.error).toBe('unauthorized_client');
      const foreign = await addOidcApp(server, await addProject(server), { grantTypes: ['TOKEN_EXCHANGE'] });
      expect((await raw(base(), basic(foreign.clientId, foreign.clientSecret!))).body.error).toBe('invalid_grant');
    });
  });
});
