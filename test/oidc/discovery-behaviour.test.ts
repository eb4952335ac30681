import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server';
import { addOidcApp, addProject, REDIRECT } from '../helpers/apps';
import { dpopKey, proof } from '../helpers/dpop';
import { basic, postForm, postFormJson } from '../helpers/forms';
import { addMachine } from '../helpers/machines';
import { codeFlowTokens, rp } from '../helpers/login-flow';
import { addUser } from '../helpers/users';
import { USER_CLAIMS } from '../../src/domain/oidc/claims';

/** Discovery advertises exactly what the provider does (§4.1): each claim is checked against behaviour. */
describe('discovery matches behaviour', () => {
  let server: TestServer;
  let d: Record<string, any>;
  let app: Awaited<ReturnType<typeof addOidcApp>>;
  let config: client.Configuration;
  beforeAll(async () => {
    server = await startTestServer();
    d = await (await fetch(`${server.url}/.well-known/openid-configuration`)).json();
    app = await addOidcApp(server, await addProject(server));
    config = await rp(server, app.clientId, app.clientSecret, client.ClientSecretBasic(app.clientSecret!));
  });
  afterAll(() => server?.stop());

  it('advertises nothing it does not do', async () => {
    // Request objects and PAR are tested in par.test.ts and request-object.test.ts; never unsigned.
    expect(d.request_object_signing_alg_values_supported).not.toContain('none');
    expect(d.request_parameter_supported).toBe(true);
    expect(d.pushed_authorization_request_endpoint).toBe(`${server.url}/oauth/v2/par`);
    expect(d.claims_supported).not.toContain('c_hash');
    expect(d.acr_values_supported).toEqual(['urn:portcullis:acr:1fa', 'urn:portcullis:acr:mfa']);
    expect(d.scopes_supported).not.toContain('address');
    // Off by default; client-id-metadata.test.ts turns it on and checks the flow it then advertises.
    expect(d.client_id_metadata_document_supported).toBeUndefined();
    expect(d.prompt_values_supported).toEqual(expect.arrayContaining(['none', 'login', 'select_account', 'create']));
    expect(d.token_endpoint_auth_signing_alg_values_supported).toEqual(
      expect.arrayContaining(['RS256', 'PS256', 'ES256', 'EdDSA']),
    );
  });

  it('every claim of an issued ID token, access token introspection and userinfo is advertised', async () => {
    const user = await addUser(server);
    const { tokens } = await codeFlowTokens(server, config, user, {
      scope: 'openid profile email phone offline_access',
    });
    const idClaims = Object.keys(tokens.claims()!);
    const info = (await (
      await fetch(`${server.url}/oidc/v1/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } })
    ).json()) as Record<string, unknown>;
    for (const claim of [...idClaims, ...Object.keys(info)]) expect(d.claims_supported, claim).toContain(claim);
  });

  it('claims_parameter_supported: the parameter is honoured; every claim it can ask for is advertised', async () => {
    expect(d.claims_parameter_supported).toBe(true);
    for (const claim of Object.keys(USER_CLAIMS)) expect(d.claims_supported, claim).toContain(claim);
    const user = await addUser(server);
    const { tokens } = await codeFlowTokens(server, config, user, {
      scope: 'openid',
      claims: JSON.stringify({ id_token: { email: null } }),
    });
    expect(tokens.claims()).toMatchObject({ sub: user.id, email: `${user.username}@example.com` });
  });

  it('every advertised grant type and prompt value is understood', async () => {
    for (const grant of d.grant_types_supported as string[]) {
      if (grant === 'implicit') continue;
      const res = await postForm(
        server,
        '/oauth/v2/token',
        { grant_type: grant },
        { authorization: basic(app.clientId, app.clientSecret!) },
      );
      expect(((await res.json()) as { error: string }).error, grant).not.toBe('unsupported_grant_type');
    }
    for (const prompt of d.prompt_values_supported as string[]) {
      const url = client.buildAuthorizationUrl(config, { redirect_uri: REDIRECT, scope: 'openid', prompt });
      const res = await fetch(url, { redirect: 'manual' });
      const location = res.headers.get('location') ?? '';
      expect(location, prompt).not.toContain('error=invalid_request');
    }
  });

  it('every advertised DPoP proof algorithm is accepted, and only asymmetric ones are advertised', async () => {
    const algs = d.dpop_signing_alg_values_supported as string[];
    expect(algs).toEqual(expect.arrayContaining(['ES256', 'PS256', 'RS256', 'EdDSA']));
    expect(algs.filter((a) => a === 'none' || a.startsWith('HS'))).toEqual([]);
    const m = await addMachine(server);
    for (const alg of algs) {
      const r = await postFormJson(
        server,
        '/oauth/v2/token',
        { grant_type: 'client_credentials', scope: 'openid' },
        {
          authorization: basic(m.username, m.clientSecret),
          dpop: await proof(await dpopKey(alg), 'POST', `${server.url}/oauth/v2/token`),
        },
      );
      expect({ alg, status: r.status, type: r.body.token_type }).toEqual({ alg, status: 200, type: 'DPoP' });
    }
  });
});
