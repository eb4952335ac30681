import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addOidcApp, addProject, REDIRECT } from '../../helpers/apps';
import { onPostgres } from '../../helpers/database';
import { dpopKey, proof } from '../../helpers/dpop';
import { basic } from '../../helpers/forms';
import { getCode, rp } from '../../helpers/login-flow';
import { addMachine } from '../../helpers/machines';
import { startTwoReplicas } from '../../helpers/replicas';
import type { TestServer } from '../../helpers/server';
import { addUser } from '../../helpers/users';

/**
 * DPoP state is shared through the database and the master key, not process memory: a proof used at
 * one replica is a replay at the other, and a nonce one replica issued is accepted by the other.
 */
describe.runIf(onPostgres)('DPoP on two replicas of one PostgreSQL', () => {
  let one: TestServer;
  let twoUrl: string;
  let stop: () => Promise<void>;
  beforeAll(async () => {
    ({ one, twoUrl, stop } = await startTwoReplicas());
  }, 90_000);
  afterAll(() => stop?.());

  // Both replicas have the external URL of replica one, so one proof (htu) fits either.
  const token = (base: string, form: Record<string, string>, headers: Record<string, string>) =>
    fetch(`${base}/oauth/v2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams(form),
    });

  it('a proof accepted by one replica is refused as a replay by the other', async () => {
    const m = await addMachine(one);
    const p = await proof(await dpopKey(), 'POST', `${one.url}/oauth/v2/token`);
    const form = { grant_type: 'client_credentials', scope: 'openid' };
    const headers = { authorization: basic(m.username, m.clientSecret), dpop: p };
    expect((await token(one.url, form, headers)).status).toBe(200);
    const replay = await token(twoUrl, form, headers);
    expect(replay.status).toBe(400);
    expect(await replay.json()).toMatchObject({ error: 'invalid_dpop_proof' });
  });

  it('a nonce from one replica is accepted by the other', async () => {
    const app = await addOidcApp(one, await addProject(one), { dpopBoundAccessTokens: true });
    const config = await rp(one, app.clientId, app.clientSecret);
    const { code, verifier } = await getCode(one, config, await addUser(one));
    const key = await dpopKey();
    const htu = `${one.url}/oauth/v2/token`;
    const form = { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier };
    const auth = { authorization: basic(app.clientId, app.clientSecret!) };
    const first = await token(one.url, form, { ...auth, dpop: await proof(key, 'POST', htu) });
    expect((await first.json()).error).toBe('use_dpop_nonce');
    const nonce = first.headers.get('dpop-nonce')!;
    const second = await token(twoUrl, form, { ...auth, dpop: await proof(key, 'POST', htu, { nonce }) });
    expect(second.status).toBe(200);
    expect((await second.json()).token_type).toBe('DPoP');
  });
});
