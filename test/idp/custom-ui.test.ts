import { Code } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionService } from '../../gen/portcullis/session/v2/session_service_pb';
import { UserService } from '../../gen/portcullis/user/v2/user_service_pb';
import { defaultOrgId } from '../helpers/context';
import { addOidcUpstream } from '../helpers/idp';
import { unique } from '../helpers/names';
import { startTestServer, type TestServer } from '../helpers/server';
import { signInAt, startUpstreamOidc, type UpstreamOidc } from '../helpers/upstream-oidc';

const SUCCESS = 'https://login.example.com/idp/success';
const FAILURE = 'https://login.example.com/idp/failure';

/**
 * A custom login UI signs a user in through a real upstream OpenID Provider with the v2 API only:
 * start the intent, the browser goes upstream and comes back to the UI's success URL, the UI reads
 * the upstream's answer, creates and links the user, and proves it with the session check.
 */
describe('identity-provider intents for a custom login UI, end to end', () => {
  let server: TestServer;
  let upstream: UpstreamOidc;
  let idpId: string;

  beforeAll(async () => {
    server = await startTestServer();
    upstream = await startUpstreamOidc({ redirectUris: [`${server.url}/idps/callback`] });
    idpId = (await addOidcUpstream(server, upstream, { options: { storeTokens: true } })).id;
  });
  afterAll(async () => {
    await upstream?.stop();
    await server?.stop();
  });

  /** What the browser does between Start and the UI's page: the upstream, then our callback. */
  async function browserRoundTrip(authUrl: string, sub: string, opts: { refuse?: boolean } = {}) {
    const params = await signInAt(authUrl, sub, opts);
    const res = await fetch(`${server.url}/idps/callback?${params}`, { redirect: 'manual' });
    expect(res.status).toBe(303);
    return new URL(res.headers.get('location')!);
  }

  it('start → upstream → success URL → retrieve → create and link → session check (once)', async () => {
    const users = server.client(UserService);
    const sub = unique('ui');
    upstream.addAccount({
      sub,
      email: `${sub}@upstream.test`,
      email_verified: true,
      given_name: 'U',
      family_name: 'I',
    });
    const started = await users.startIdentityProviderIntent({
      idpId,
      content: { case: 'urls', value: { successUrl: SUCCESS, failureUrl: FAILURE } },
    });
    expect(started.nextStep.case).toBe('authUrl');
    const back = await browserRoundTrip(started.nextStep.value as string, sub);
    expect(`${back.origin}${back.pathname}`).toBe(SUCCESS);
    expect(back.searchParams.get('id')).toBe(started.idpIntentId);
    const token = back.searchParams.get('token')!;

    const retrieved = await users.retrieveIdentityProviderIntent({
      idpIntentId: started.idpIntentId,
      idpIntentToken: token,
    });
    expect(retrieved.userId).toBe('');
    expect(retrieved.idpInformation?.userId).toBe(sub);
    expect(retrieved.idpInformation?.accessToken).not.toBe('');
    expect(retrieved.profile).toMatchObject({ email: `${sub}@upstream.test`, emailVerified: true, givenName: 'U' });

    const created = await users.createUser({
      organizationId: await defaultOrgId(server),
      userType: {
        case: 'human',
        value: {
          profile: { givenName: 'U', familyName: 'I' },
          email: { email: `${sub}@upstream.test`, verification: { case: 'isVerified', value: true } },
        },
      },
    });
    await users.addIDPLink({ userId: created.id, idpLink: { idpId, userId: sub, userName: sub } });

    const sessions = server.client(SessionService);
    const check = { idpIntent: { idpIntentId: started.idpIntentId, idpIntentToken: token } };
    const session = await sessions.createSession({ checks: check });
    const got = await sessions.getSession({ sessionId: session.sessionId });
    expect(got.session?.factors?.idpIntentCheckedAt).toBeDefined();
    expect(got.session?.factors?.idpId).toBe(idpId);
    // an intent signs in once
    await expect(sessions.createSession({ checks: check })).rejects.toMatchObject({ code: Code.NotFound });
  });

  it('a refusal at the upstream goes to the failure URL, and the intent cannot be retrieved', async () => {
    const users = server.client(UserService);
    const sub = unique('no');
    upstream.addAccount({ sub, email: `${sub}@upstream.test`, email_verified: true });
    const started = await users.startIdentityProviderIntent({
      idpId,
      content: { case: 'urls', value: { successUrl: SUCCESS, failureUrl: FAILURE } },
    });
    const back = await browserRoundTrip(started.nextStep.value as string, sub, { refuse: true });
    expect(`${back.origin}${back.pathname}`).toBe(FAILURE);
    expect(back.searchParams.get('error')).toMatch(/access_denied/);
    expect(back.searchParams.get('token')).toBeNull();
    await expect(
      users.retrieveIdentityProviderIntent({ idpIntentId: started.idpIntentId, idpIntentToken: 'guess' }),
    ).rejects.toThrow(/not found/);
  });
});
