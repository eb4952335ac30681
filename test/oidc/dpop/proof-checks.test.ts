import { exportJWK, generateSecret, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, postFormJson } from '../../helpers/forms';
import { decodePayload } from '../../helpers/jwt-grants';
import { addMachine } from '../../helpers/machines';
import { type DpopKey, dpopKey, proof } from '../../helpers/dpop';
import { startTestServer, type TestServer } from '../../helpers/server';

/**
 * RFC 9449 §4.3 at the token endpoint, raw HTTP with proofs made by jose: every rule of a proof is
 * broken once (client credentials of a machine user, the shortest grant) and the request must fail
 * with invalid_dpop_proof and no token; the correct proof works once.
 */
describe('DPoP proof checks at the token endpoint', () => {
  let server: TestServer;
  let m: Awaited<ReturnType<typeof addMachine>>;
  let key: DpopKey;
  let tokenUrl: string;
  beforeAll(async () => {
    server = await startTestServer();
    m = await addMachine(server, { accessTokenType: 'JWT' });
    key = await dpopKey();
    tokenUrl = `${server.url}/oauth/v2/token`;
  });
  afterAll(() => server?.stop());

  const token = (dpop: string | undefined) =>
    postFormJson(
      server,
      '/oauth/v2/token',
      { grant_type: 'client_credentials', scope: 'openid' },
      { authorization: basic(m.username, m.clientSecret), ...(dpop === undefined ? {} : { dpop }) },
    );
  const refused = async (dpop: string, why: RegExp) => {
    const r = await token(dpop);
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('invalid_dpop_proof');
    expect(r.body.error_description).toMatch(why);
    expect(r.body.access_token).toBeUndefined();
  };

  it('binds the token to the proof key: token_type DPoP and cnf.jkt', async () => {
    const r = await token(await proof(key, 'POST', tokenUrl));
    expect(r.status).toBe(200);
    expect(r.body.token_type).toBe('DPoP');
    expect(decodePayload(r.body.access_token).cnf).toEqual({ jkt: key.jkt });
    // without a proof the same machine user still gets a plain bearer token
    const plain = await token(undefined);
    expect(plain.body.token_type).toBe('Bearer');
    expect(decodePayload(plain.body.access_token).cnf).toBeUndefined();
  });

  it('refuses a replayed proof (same jti), also a second time in a row', async () => {
    const p = await proof(key, 'POST', tokenUrl);
    expect((await token(p)).status).toBe(200);
    await refused(p, /already used/);
    await refused(p, /already used/);
  });

  it('refuses a proof for another URL (htu) or method (htm); query and fragment do not count', async () => {
    await refused(await proof(key, 'POST', `${server.url}/oidc/v1/userinfo`), /htu/);
    await refused(await proof(key, 'POST', `https://evil.example.com/oauth/v2/token`), /htu/);
    await refused(await proof(key, 'GET', tokenUrl), /htm/);
    expect((await token(await proof(key, 'POST', `${tokenUrl}?x=1#f`))).status).toBe(200);
  });

  it('refuses a proof signed by a key other than its jwk header', async () => {
    await refused(await proof(key, 'POST', tokenUrl, { signWith: await dpopKey() }), /signature/);
  });

  it('refuses a proof whose iat is too old or in the future', async () => {
    const now = Math.floor(Date.now() / 1000);
    await refused(await proof(key, 'POST', tokenUrl, { claims: { iat: now - 120 } }), /too old/);
    await refused(await proof(key, 'POST', tokenUrl, { claims: { iat: now + 60 } }), /future/);
    await refused(await proof(key, 'POST', tokenUrl, { claims: { iat: undefined } }), /iat/);
  });

  it('refuses a symmetric alg, a private key in jwk, a wrong typ, no jti and two proofs', async () => {
    const secret = await generateSecret('HS256', { extractable: true });
    const hs = await new SignJWT({ jti: 'x', htm: 'POST', htu: tokenUrl, iat: Math.floor(Date.now() / 1000) })
      .setProtectedHeader({ alg: 'HS256', typ: 'dpop+jwt', jwk: await exportJWK(secret) })
      .sign(secret);
    await refused(hs, /alg/);
    const privateJwk = await exportJWK(key.privateKey);
    await refused(await proof(key, 'POST', tokenUrl, { header: { jwk: privateJwk } }), /public key/);
    await refused(await proof(key, 'POST', tokenUrl, { header: { typ: 'JWT' } }), /typ/);
    await refused(await proof(key, 'POST', tokenUrl, { claims: { jti: undefined } }), /jti/);
    const [a, b] = [await proof(key, 'POST', tokenUrl), await proof(key, 'POST', tokenUrl)];
    await refused(`${a}, ${b}`, /exactly one/);
    await refused('not-a-jwt', /invalid DPoP proof/);
  });
});
