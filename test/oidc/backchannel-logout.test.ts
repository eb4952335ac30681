import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Code } from '@connectrpc/connect';
import { eq } from 'drizzle-orm';
import { createRemoteJWKSet, decodeJwt, jwtVerify } from 'jose';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ApplicationService } from '../../gen/portcullis/application/v2/application_service_pb';
import { SessionService } from '../../gen/portcullis/session/v2/session_service_pb';
import { logoutDeliveries } from '../../src/db/schema/index';
import { deliverLogoutsNow, MAX_LOGOUT_ATTEMPTS } from '../../src/domain/oidc/logout/delivery';
import { addOidcApp, addProject, LOGOUT_REDIRECT } from '../helpers/apps';
import { Browser } from '../helpers/browser';
import { eventsSince, lastPosition } from '../helpers/events';
import { getCode, rp } from '../helpers/login-flow';
import { startTestServer, type TestServer } from '../helpers/server';
import { addUser } from '../helpers/users';

const EVENT = 'http://schemas.openid.net/event/backchannel-logout';

interface Received {
  path: string;
  contentType: string | undefined;
  body: URLSearchParams;
}

/** A relying party's back-channel endpoint: records each POST and answers what `answer` says. */
async function startReceiver() {
  const received: Received[] = [];
  const answers = new Map<string, number[]>();
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (d) => {
      raw += d;
    });
    req.on('end', () => {
      const path = req.url ?? '';
      received.push({ path, contentType: req.headers['content-type'], body: new URLSearchParams(raw) });
      res.statusCode = answers.get(path)?.shift() ?? 200;
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    received,
    at: (path: string) => received.filter((r) => r.path === path),
    /** the next answers of `path`, in order; then 200 */
    answer: (path: string, ...codes: number[]) => answers.set(path, codes),
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

describe('OpenID Connect Back-Channel and Front-Channel Logout', () => {
  let server: TestServer;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let project: string;
  let user: Awaited<ReturnType<typeof addUser>>;
  beforeAll(async () => {
    server = await startTestServer();
    receiver = await startReceiver();
    project = await addProject(server);
    user = await addUser(server);
  });
  afterAll(async () => {
    await receiver?.close();
    await server?.stop();
  });

  const appWith = async (oidc: Parameters<typeof addOidcApp>[2]) => {
    const app = await addOidcApp(server, project, oidc);
    return { ...app, config: await rp(server, app.clientId, app.clientSecret) };
  };
  const deliveries = (clientId: string) =>
    server.app.database.db.select().from(logoutDeliveries).where(eq(logoutDeliveries.clientId, clientId));
  /** What the back-off would wait for happens now: the test does not sleep through it. */
  const retryNow = async (clientId: string) => {
    await server.app.database.db
      .update(logoutDeliveries)
      .set({ nextAttemptAt: new Date(0) })
      .where(eq(logoutDeliveries.clientId, clientId));
    await deliverLogoutsNow(server.app.deps);
  };
  /** The code flow through the hosted login; in `browser` when given (its session signs in again: SSO). */
  const signIn = async (config: client.Configuration, browser?: Browser) => {
    const r = await getCode(server, config, user, {}, browser);
    const tokens = await client.authorizationCodeGrant(config, r.landed, {
      pkceCodeVerifier: r.verifier,
      expectedState: r.state,
    });
    return { ...r, tokens };
  };
  const endSession = (browser: Browser, idToken: string) => browser.go(`/oidc/v1/end_session?id_token_hint=${idToken}`);

  it('end_session POSTs one logout token, verified with the JWKS, only to the apps of that session', async () => {
    const withUri = await appWith({ backchannelLogoutUri: `${receiver.base}/bc/a` });
    const withoutUri = await appWith({});
    const otherSession = await appWith({ backchannelLogoutUri: `${receiver.base}/bc/other` });
    const signedIn = await signIn(withUri.config);
    // the same browser session signs in to the app without a URI too (SSO)
    const alsoHere = await signIn(withoutUri.config, signedIn.browser);
    // another browser, another session
    await signIn(otherSession.config);
    const idClaims = signedIn.tokens.claims()!;
    expect(idClaims.sid).toBeTruthy();

    const page = await endSession(signedIn.browser, signedIn.tokens.id_token!);
    expect(page.res.status).toBe(200);
    await vi.waitFor(() => expect(receiver.at('/bc/a')).toHaveLength(1), { timeout: 5000 });

    const [post] = receiver.at('/bc/a');
    expect(post.contentType).toBe('application/x-www-form-urlencoded');
    const token = post.body.get('logout_token')!;
    const jwks = createRemoteJWKSet(new URL(`${server.url}/oauth/v2/keys`));
    const { payload, protectedHeader } = await jwtVerify(token, jwks, {
      issuer: server.url,
      audience: withUri.clientId,
      typ: 'logout+jwt',
    });
    expect(protectedHeader.typ).toBe('logout+jwt');
    expect(payload.events).toEqual({ [EVENT]: {} });
    expect(payload.sid).toBe(idClaims.sid);
    expect(payload.sub).toBe(idClaims.sub);
    expect(payload).not.toHaveProperty('nonce');
    expect(payload.jti).toEqual(expect.any(String));
    expect(payload.exp! - payload.iat!).toBeLessThanOrEqual(120);
    expect(Math.abs(payload.iat! - Date.now() / 1000)).toBeLessThan(60);

    expect(alsoHere.tokens.claims()!.sid).toBe(idClaims.sid);
    expect(await deliveries(withoutUri.clientId)).toEqual([]);
    expect(await deliveries(otherSession.clientId)).toEqual([]);
    expect(receiver.at('/bc/other')).toEqual([]);
    await vi.waitFor(async () => expect((await deliveries(withUri.clientId))[0]?.status).toBe('SENT'));
    // the job's next ticks do not send it again
    await deliverLogoutsNow(server.app.deps);
    expect(receiver.at('/bc/a')).toHaveLength(1);
  });

  it('a receiver answering 503 gets the token on a later attempt; the token is signed afresh', async () => {
    const app = await appWith({ backchannelLogoutUri: `${receiver.base}/bc/retry` });
    receiver.answer('/bc/retry', 503);
    const from = await lastPosition(server);
    const r = await signIn(app.config);
    await endSession(r.browser, r.tokens.id_token!);
    await vi.waitFor(async () => expect((await deliveries(app.clientId))[0]?.lastError).toBe('HTTP 503'));
    const [waiting] = await deliveries(app.clientId);
    expect(waiting).toMatchObject({ status: 'PENDING', attempts: 1 });
    expect(waiting.nextAttemptAt.getTime()).toBeGreaterThan(Date.now());

    await retryNow(app.clientId);
    const posts = receiver.at('/bc/retry');
    expect(posts).toHaveLength(2);
    expect((await deliveries(app.clientId))[0]).toMatchObject({ status: 'SENT', attempts: 2, lastError: null });
    const [first, second] = posts.map((p) => decodeJwt(p.body.get('logout_token')!));
    expect(second.jti).toBe(first.jti);
    const types = (await eventsSince(server, from)).map((e) => e.eventType);
    expect(types).toContain('session.logout_token.queued');
    expect(types).toContain('session.logout_token.sent');
    expect(types).not.toContain('session.logout_token.failed');
  });

  it('a receiver that is down is tried the maximum number of times, then FAILED with an event', async () => {
    const down = await startReceiver();
    await down.close();
    const app = await appWith({ backchannelLogoutUri: `${down.base}/bc/down` });
    const from = await lastPosition(server);
    const r = await signIn(app.config);
    await endSession(r.browser, r.tokens.id_token!);
    await vi.waitFor(async () => expect((await deliveries(app.clientId))[0]?.lastError).toBe('ECONNREFUSED'));
    for (let i = 1; i < MAX_LOGOUT_ATTEMPTS; i++) await retryNow(app.clientId);
    const [row] = await deliveries(app.clientId);
    expect(row).toMatchObject({ status: 'FAILED', attempts: MAX_LOGOUT_ATTEMPTS, lastError: 'ECONNREFUSED' });
    await retryNow(app.clientId);
    expect((await deliveries(app.clientId))[0].attempts).toBe(MAX_LOGOUT_ATTEMPTS);
    const failed = await eventsSince(server, from, 'session.logout_token.failed');
    expect(failed).toHaveLength(1);
    expect(failed[0].payload).toMatchObject({ clientId: app.clientId, attempts: MAX_LOGOUT_ATTEMPTS });
  });

  it('SessionService.DeleteSession queues and delivers the logout token as well', async () => {
    const app = await appWith({ backchannelLogoutUri: `${receiver.base}/bc/api` });
    const r = await signIn(app.config);
    const sid = r.tokens.claims()!.sid as string;
    await server.client(SessionService).deleteSession({ sessionId: sid });
    await vi.waitFor(() => expect(receiver.at('/bc/api')).toHaveLength(1), { timeout: 5000 });
    expect(decodeJwt(receiver.at('/bc/api')[0].body.get('logout_token')!).sid).toBe(sid);
  });

  it('the logged-out page frames the front-channel URIs (iss, sid when required); CSP allows only them', async () => {
    const withSid = await appWith({
      frontchannelLogoutUri: 'https://front.example.com/logout?x=1',
      frontchannelLogoutSessionRequired: true,
    });
    const plain = await appWith({ frontchannelLogoutUri: 'https://plain.example.net/fc' });
    const none = await appWith({});
    const r = await signIn(withSid.config);
    await signIn(plain.config, r.browser);
    await signIn(none.config, r.browser);
    const sid = r.tokens.claims()!.sid as string;

    const page = await endSession(r.browser, r.tokens.id_token!);
    expect(page.res.status).toBe(200);
    const frames = [...page.html.matchAll(/<iframe src="([^"]+)"/g)].map((m) => new URL(m[1].replace(/&amp;/g, '&')));
    expect(frames.map((u) => u.origin).sort()).toEqual(['https://front.example.com', 'https://plain.example.net']);
    const framed = frames.find((u) => u.origin === 'https://front.example.com')!;
    expect(framed.searchParams.get('iss')).toBe(server.url);
    expect(framed.searchParams.get('sid')).toBe(sid);
    expect(framed.searchParams.get('x')).toBe('1');
    expect(frames.find((u) => u.origin === 'https://plain.example.net')!.search).toBe('');
    const csp = page.res.headers.get('content-security-policy')!;
    const frameSrc = csp
      .split(';')
      .map((d) => d.trim())
      .find((d) => d.startsWith('frame-src'));
    expect(frameSrc?.split(/\s+/).slice(1).sort()).toEqual(['https://front.example.com', 'https://plain.example.net']);
    expect(csp).toContain("frame-ancestors 'none'");
  });

  it('before the post-logout redirect the page frames the logout URIs and then goes on to the client', async () => {
    const app = await appWith({ frontchannelLogoutUri: 'https://front.example.com/fc' });
    const r = await signIn(app.config);
    const url = client.buildEndSessionUrl(app.config, {
      id_token_hint: r.tokens.id_token!,
      post_logout_redirect_uri: LOGOUT_REDIRECT,
      state: 'bye',
    });
    const res = await r.browser.request(url.toString());
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('<iframe src="https://front.example.com/fc"');
    expect(html).toContain(`href="${LOGOUT_REDIRECT}?state=bye"`);
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toMatch(/frame-src https:\/\/front\.example\.com(;|$)/);
    expect(csp).toMatch(/script-src 'sha256-[A-Za-z0-9+/=]+'/);

    // a client without front-channel logout still gets the plain redirect
    const plainApp = await appWith({});
    const p = await signIn(plainApp.config);
    const plain = await p.browser.request(
      client
        .buildEndSessionUrl(plainApp.config, {
          id_token_hint: p.tokens.id_token!,
          post_logout_redirect_uri: LOGOUT_REDIRECT,
        })
        .toString(),
    );
    expect(plain.status).toBe(303);
  });

  it('ApplicationService refuses logout URIs over http on a public host, with fragment, or relative', async () => {
    const apps = server.client(ApplicationService);
    const create = (oidc: Record<string, unknown>) =>
      apps.createApplication({
        projectId: project,
        name: 'logout-uris',
        configuration: { case: 'oidc', value: { redirectUris: ['https://rp.example.com/cb'], ...oidc } },
      });
    await expect(create({ backchannelLogoutUri: 'http://rp.example.com/bc' })).rejects.toMatchObject({
      code: Code.InvalidArgument,
      rawMessage: expect.stringContaining('oidc.backchannel_logout_uri'),
    });
    await expect(create({ frontchannelLogoutUri: 'https://rp.example.com/fc#x' })).rejects.toMatchObject({
      code: Code.InvalidArgument,
      rawMessage: expect.stringContaining('oidc.frontchannel_logout_uri'),
    });
    await expect(create({ backchannelLogoutUri: '/relative' })).rejects.toMatchObject({
      code: Code.InvalidArgument,
    });
    const ok = await create({
      backchannelLogoutUri: 'http://127.0.0.1:9/bc',
      backchannelLogoutSessionRequired: true,
    });
    const dev = await create({ developmentMode: true, frontchannelLogoutUri: 'http://rp.example.com/fc' });
    expect(dev.applicationId).toBeTruthy();
    const got = (await apps.getApplication({ applicationId: ok.applicationId })).application!;
    expect(got.configuration.value).toMatchObject({
      backchannelLogoutUri: 'http://127.0.0.1:9/bc',
      backchannelLogoutSessionRequired: true,
      frontchannelLogoutUri: '',
    });
    await expect(
      apps.updateApplication({
        applicationId: ok.applicationId,
        configuration: { case: 'oidc', value: { backchannelLogoutUri: 'http://rp.example.com/bc' } },
      }),
    ).rejects.toMatchObject({ code: Code.InvalidArgument, rawMessage: expect.stringContaining('backchannel_logout') });
    await apps.updateApplication({
      applicationId: ok.applicationId,
      updateMask: { paths: ['oidc.backchannel_logout_uri'] },
      configuration: { case: 'oidc', value: {} },
    });
    const cleared = (await apps.getApplication({ applicationId: ok.applicationId })).application!;
    expect(cleared.configuration.value).toMatchObject({ backchannelLogoutUri: '' });
  });

  it('discovery advertises back- and front-channel logout with sessions', async () => {
    const doc = await (await fetch(`${server.url}/.well-known/openid-configuration`)).json();
    expect(doc).toMatchObject({
      backchannel_logout_supported: true,
      backchannel_logout_session_supported: true,
      frontchannel_logout_supported: true,
      frontchannel_logout_session_supported: true,
    });
  });
});
