import { createRemoteJWKSet, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InstanceService } from '../../gen/portcullis/instance/v2/instance_service_pb';
import { onPostgres } from '../helpers/database';
import { waitFor } from '../helpers/process';
import { startTwoReplicas } from '../helpers/replicas';
import type { TestServer } from '../helpers/server';
import { addApiApp, addOidcApp, addProject, REDIRECT } from '../helpers/apps';
import { basic, postForm } from '../helpers/forms';
import { getCode, rp } from '../helpers/login-flow';
import { addUser } from '../helpers/users';

/** Two server processes on one PostgreSQL: login on one, code exchange on the other, introspection on either. */
describe.runIf(onPostgres)('two replicas on one PostgreSQL', () => {
  let one: TestServer;
  let twoUrl: string;
  let stop: () => Promise<void>;
  beforeAll(async () => {
    ({ one, twoUrl, stop } = await startTwoReplicas());
  }, 90_000);
  afterAll(() => stop?.());

  it('a code from replica one is exchanged at replica two; introspection and revocation agree', async () => {
    const project = await addProject(one);
    const app = await addOidcApp(one, project);
    const api = await addApiApp(one, project);
    const user = await addUser(one);
    const config = await rp(one, app.clientId, app.clientSecret);
    const { code, verifier } = await getCode(one, config, user);
    const res = await postForm(
      { url: twoUrl } as TestServer,
      '/oauth/v2/token',
      { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier },
      {
        authorization: basic(app.clientId, app.clientSecret!),
      },
    );
    expect(res.status).toBe(200);
    const tokens = await res.json();
    // the ID token signed on replica two verifies with replica one's JWKS
    const { payload } = await jwtVerify(tokens.id_token, createRemoteJWKSet(new URL(`${one.url}/oauth/v2/keys`)), {
      issuer: one.url,
      audience: app.clientId,
    });
    expect(payload.sub).toBe(user.id);
    const introspect = (base: string, token: string) =>
      postForm(
        { url: base } as TestServer,
        '/oauth/v2/introspect',
        { token },
        { authorization: basic(api.clientId, api.clientSecret) },
      ).then((r) => r.json());
    expect((await introspect(one.url, tokens.access_token)).active).toBe(true);
    expect((await introspect(twoUrl, tokens.access_token)).active).toBe(true);
    // Revoked on one: inactive there at once; replica two, which has the lookup cached, learns of it
    // by PostgreSQL's notification as the revocation commits (milliseconds; bounded here by 2 s).
    await postForm(
      one,
      '/oauth/v2/revoke',
      { token: tokens.access_token },
      { authorization: basic(app.clientId, app.clientSecret!) },
    );
    expect((await introspect(one.url, tokens.access_token)).active).toBe(false);
    const revokedAt = Date.now();
    await waitFor(
      async () => !(await introspect(twoUrl, tokens.access_token)).active,
      2_000,
      'replica two sees the revocation',
    );
    expect(Date.now() - revokedAt).toBeLessThan(2_000);
    // refresh on two with the refresh token from the exchange
    const refreshed = await postForm(
      { url: twoUrl } as TestServer,
      '/oauth/v2/token',
      { grant_type: 'refresh_token', refresh_token: tokens.refresh_token },
      {
        authorization: basic(app.clientId, app.clientSecret!),
      },
    );
    expect(refreshed.status).toBe(200);
  });

  it('an instance renamed on replica one is answered renamed by replica two, which had it cached', async () => {
    const getInstance = async (base: string) => {
      const res = await fetch(`${base}/portcullis.instance.v2.InstanceService/GetInstance`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${one.pat}` },
        body: '{}',
      });
      expect(res.status).toBe(200);
      return (await res.json()).instance.name as string;
    };
    await getInstance(twoUrl);
    const name = `Renamed ${Date.now()}`;
    await one.client(InstanceService).updateInstance({ instanceName: name });
    await waitFor(async () => (await getInstance(twoUrl)) === name, 2_000, 'replica two answers the new name');
  });
});
