import { createPrivateKey, randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApplicationKey } from '../../src/domain/application/keys';
import { startTestServer, type TestServer } from '../helpers/server';
import { addOidcApp, addProject } from '../helpers/apps';
import { systemCtx } from '../helpers/context';
import { postForm } from '../helpers/forms';
import { assertion, JWT_BEARER } from '../helpers/jwt-grants';
import { addMachine } from '../helpers/machines';

describe('lifetime of the JWTs clients sign', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ PORTCULLIS_ASSERTION_MAX_LIFETIME: '30m' });
  });
  afterAll(() => server?.stop());

  const now = () => Math.floor(Date.now() / 1000);

  it('a JWT profile assertion valid for a year, or without iat, is refused; one within the limit works', async () => {
    const m = await addMachine(server);
    const grant = async (over: Parameters<typeof assertion>[2]) =>
      postForm(server, '/oauth/v2/token', {
        grant_type: JWT_BEARER,
        scope: 'openid',
        assertion: await assertion(server, m, over),
      });
    const year = await grant({ exp: now() + 365 * 86400 });
    expect(year.status).toBe(400);
    expect(await year.json()).toMatchObject({
      error: 'invalid_grant',
      error_description: expect.stringContaining('exp'),
    });
    expect((await grant({ exp: now() + 3600 })).status).toBe(400);
    expect((await grant({ iat: now() + 600 })).status).toBe(400);
    expect((await grant({ exp: now() + 1200 })).status).toBe(200);
  });

  it('a private_key_jwt client assertion valid too long is invalid_client', async () => {
    const app = await addOidcApp(server, await addProject(server), {
      authMethodType: 'PRIVATE_KEY_JWT',
      grantTypes: ['AUTHORIZATION_CODE', 'REFRESH_TOKEN'],
    });
    const { keyId, keyFile } = await createApplicationKey(systemCtx(server), { applicationId: app.applicationId });
    const sign = (exp: number) =>
      new SignJWT({ iss: app.clientId, sub: app.clientId, aud: server.url, iat: now(), exp, jti: randomUUID() })
        .setProtectedHeader({ alg: 'RS256', kid: keyId })
        .sign(createPrivateKey(keyFile.key));
    const attempt = async (exp: number) =>
      postForm(server, '/oauth/v2/introspect', {
        token: 'x',
        client_id: app.clientId,
        client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
        client_assertion: await sign(exp),
      });
    const long = await attempt(now() + 30 * 86400);
    expect(long.status).toBe(401);
    expect(await long.json()).toMatchObject({
      error: 'invalid_client',
      error_description: expect.stringContaining('exp'),
    });
    expect((await attempt(now() + 300)).status).toBe(200);
  });
});
