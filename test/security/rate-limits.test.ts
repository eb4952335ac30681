import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InstanceService } from '../../gen/portcullis/instance/v2/instance_service_pb';
import { addressKey } from '../../src/http/rate-limit/source-address';
import { onPostgres } from '../helpers/database';
import { waitFor } from '../helpers/process';
import { startTestServer, type TestServer } from '../helpers/server';
import { pidsLogging, withWorkers } from '../helpers/workers';
import * as client from 'openid-client';
import { addOidcApp, addProject, REDIRECT } from '../helpers/apps';
import { Browser } from '../helpers/browser';
import { basic } from '../helpers/forms';
import { rp } from '../helpers/login-flow';
import { addMachine } from '../helpers/machines';
import { addUser } from '../helpers/users';

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/**
 * One request on a new connection from a chosen loopback address (every 127.x.y.z is this machine
 * on Linux), so that the server sees the attacker and the bystander as different sources; a new
 * connection each time also lets the cluster hand requests to different workers.
 */
function send(
  base: string,
  p: string,
  opts: { from?: string; method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  const url = new URL(p, base);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method: opts.method ?? 'GET',
        headers: opts.headers,
        localAddress: opts.from,
        agent: false,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
/** A client credentials request with Basic authentication. */
const clientCredentials = (clientId: string, secret: string) => ({
  method: 'POST',
  headers: { ...FORM, authorization: basic(clientId, secret) },
  body: 'grant_type=client_credentials&scope=openid',
});
const guess = (clientId: string, i: number) => clientCredentials(clientId, `guess-${i}`);

/** The token endpoint's answer over the limit: 429, Retry-After in seconds, an OAuth JSON error, not cached. */
function expectTokenRefusal(a: Answer) {
  expect(a.status).toBe(429);
  expect(Number(a.headers['retry-after'])).toBeGreaterThan(0);
  expect(Number(a.headers['retry-after'])).toBeLessThanOrEqual(60);
  expect(a.headers['cache-control']).toBe('no-store');
  expect(a.headers['content-type']).toMatch(/^application\/json/);
  const body = JSON.parse(a.body);
  expect(body.error).toBe('temporarily_unavailable');
  expect(body.error_description).toMatch(/too many token requests/);
}

describe('rate limits', () => {
  let server: TestServer;
  const settings = (s: Record<string, number>) => server.client(InstanceService).updateInstanceSettings(s);
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.stop());

  it('are instance settings with defaults that the settings API reads and changes', async () => {
    const { settings: before } = await server.client(InstanceService).getInstanceSettings({});
    expect(before).toMatchObject({
      rateLimitWindowSeconds: 60,
      tokenRateLimitPerClient: 6000,
      tokenRateLimitPerAddress: 1200,
      loginRateLimitPerAddress: 300,
      keysRateLimitPerAddress: 600,
    });
    await expect(settings({ rateLimitWindowSeconds: 0 })).rejects.toThrow(
      /rate_limit_window_seconds must be between 1 and 3600/,
    );
  });

  it('an address guessing client secrets: 429 past the limit (lowered via settings API); others do not', async () => {
    const attacker = '127.0.0.2';
    await settings({ tokenRateLimitPerAddress: 1200, tokenRateLimitPerClient: 6000 });
    // under the default limit, eight guesses are eight wrong answers
    for (let i = 0; i < 8; i++)
      expect((await send(server.url, '/oauth/v2/token', { from: attacker, ...guess(`nobody-${i}`, i) })).status).toBe(
        401,
      );
    await settings({ tokenRateLimitPerAddress: 5 });
    const answers: Answer[] = [];
    for (let i = 0; i < 8; i++)
      answers.push(await send(server.url, '/oauth/v2/token', { from: attacker, ...guess(`someone-${i}`, i) }));
    // a changed limit starts a new count: five more guesses are answered, then the address is refused
    expect(answers.map((a) => a.status)).toEqual([401, 401, 401, 401, 401, 429, 429, 429]);
    expectTokenRefusal(answers[5]);
    // refused before the body is read: not even a malformed request gets further
    expect(
      (await send(server.url, '/oauth/v2/token', { from: attacker, method: 'POST', headers: FORM, body: '' })).status,
    ).toBe(429);
    // a client on another address gets its tokens
    const machine = await addMachine(server);
    const ok = await send(server.url, '/oauth/v2/token', {
      from: '127.0.0.1',
      ...clientCredentials(machine.username, machine.clientSecret),
    });
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.body).access_token).toBeTruthy();
  });

  it('one client guessed from many addresses → refused per client; another client on that address is not', async () => {
    await settings({ tokenRateLimitPerAddress: 1200, tokenRateLimitPerClient: 4 });
    const victim = await addMachine(server);
    const other = await addMachine(server);
    const statuses: number[] = [];
    let last: Answer | undefined;
    for (let i = 0; i < 6; i++) {
      last = await send(server.url, '/oauth/v2/token', { from: `127.0.1.${10 + i}`, ...guess(victim.username, i) });
      statuses.push(last.status);
    }
    expect(statuses).toEqual([401, 401, 401, 401, 429, 429]);
    expectTokenRefusal(last!);
    // the client id counts however it is presented: in the body as well as in Basic
    const inBody = await send(server.url, '/oauth/v2/token', {
      from: '127.0.1.20',
      method: 'POST',
      headers: FORM,
      body:
        'grant_type=client_credentials&scope=openid' +
        `&client_id=${encodeURIComponent(victim.username)}&client_secret=x`,
    });
    expect(inBody.status).toBe(429);
    const ok = await send(server.url, '/oauth/v2/token', {
      from: '127.0.1.15',
      ...clientCredentials(other.username, other.clientSecret),
    });
    expect(ok.status).toBe(200);
  });

  it('login form posts from one address get a readable 429 page; a person on another address signs in', async () => {
    await settings({ loginRateLimitPerAddress: 3 });
    const app = await addOidcApp(server, await addProject(server));
    const user = await addUser(server);
    const config = await rp(server, app.clientId, app.clientSecret, client.ClientSecretBasic(app.clientSecret!));
    const authUrl = client.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT,
      scope: 'openid',
      code_challenge: await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier()),
      code_challenge_method: 'S256',
    });
    const start = await send(server.url, authUrl.pathname + authUrl.search, { from: '127.0.0.3' });
    const authRequest = new URL(start.headers.location!, server.url).searchParams.get('authRequest')!;
    expect(authRequest).toBeTruthy();
    const post = (i: number) =>
      send(server.url, '/ui/login/password', {
        from: '127.0.0.3',
        method: 'POST',
        headers: { ...FORM, 'accept-language': 'en' },
        body: new URLSearchParams({ authRequest, password: `guess-${i}` }).toString(),
      });
    const answers: Answer[] = [];
    for (let i = 0; i < 5; i++) answers.push(await post(i));
    expect(answers.slice(0, 3).every((a) => a.status === 303)).toBe(true);
    const refused = answers[3];
    expect(answers[4].status).toBe(429);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.headers['content-type']).toMatch(/^text\/html/);
    expect(refused.headers['cache-control']).toBe('no-store');
    expect(refused.body).toMatch(/^<!DOCTYPE html>/);
    expect(refused.body).toContain(`Please wait ${refused.headers['retry-after']} seconds`);
    // the login pages themselves are still shown (they check nothing)
    expect((await send(server.url, `/ui/login/login?authRequest=${authRequest}`, { from: '127.0.0.3' })).status).toBe(
      200,
    );
    // a person on another address completes the sign-in
    const landed = await new Browser(server.url).login(authUrl.toString(), user.username, user.password);
    expect(new URL(landed).searchParams.get('code')).toBeTruthy();
  });

  it('the key set answers 429 with a JSON error to an address over its limit, and 200 to others', async () => {
    await settings({ keysRateLimitPerAddress: 3 });
    const statuses: number[] = [];
    let last: Answer | undefined;
    for (let i = 0; i < 5; i++) {
      last = await send(server.url, '/oauth/v2/keys', { from: '127.0.0.4' });
      statuses.push(last.status);
    }
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    expect(Number(last!.headers['retry-after'])).toBeGreaterThan(0);
    expect(last!.headers['cache-control']).toBe('no-store');
    expect(JSON.parse(last!.body).error).toBe('temporarily_unavailable');
    const other = await send(server.url, '/oauth/v2/keys', { from: '127.0.0.5' });
    expect(other.status).toBe(200);
    expect(JSON.parse(other.body).keys.length).toBeGreaterThan(0);
  });

  it('0 turns a limit off', async () => {
    await settings({ keysRateLimitPerAddress: 0 });
    for (let i = 0; i < 5; i++)
      expect((await send(server.url, '/oauth/v2/keys', { from: '127.0.0.4' })).status).toBe(200);
  });
});

describe('the address a request counts under', () => {
  it('is an IPv4 address as such, an IPv4-mapped one as IPv4, an IPv6 one by its /64', () => {
    expect(addressKey('203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    // one subscriber's /64 is one key, however the address is written
    expect(addressKey('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:0db8:0001:0002:ffff:ffff:ffff:ffff')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(addressKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(addressKey('2001:db8:1:3::1')).not.toBe(addressKey('2001:db8:1:2::1'));
  });
});

// Worker processes need PostgreSQL (PGlite runs one process).
describe.skipIf(!onPostgres)('rate limits with worker processes', () => {
  it('hold for the replica as a whole: two workers together let exactly the limit pass', async () => {
    await withWorkers(async ({ base, pat, proc }) => {
      const res = await fetch(`${base}/portcullis.instance.v2.InstanceService/UpdateInstanceSettings`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${pat}` },
        body: JSON.stringify({ tokenRateLimitPerAddress: 10, keysRateLimitPerAddress: 1 }),
      });
      expect(res.status).toBe(200);
      // The worker that did not run the update hears of it through PostgreSQL a moment later: wait
      // until both refuse a probe address that the new key-set limit of 1 allows once.
      await send(base, '/oauth/v2/keys', { from: '127.0.2.1' });
      await waitFor(
        async () => {
          for (let i = 0; i < 10; i++)
            if ((await send(base, '/oauth/v2/keys', { from: '127.0.2.1' })).status !== 429) return false;
          // ...and both are serving: on a busy machine the second worker may still be starting
          return pidsLogging(proc, /"path":"\/oauth\/v2\/keys","status":429/).size === 2;
        },
        30_000,
        'both workers use the new settings',
      );

      const statuses: number[] = [];
      for (let i = 0; i < 30; i++)
        statuses.push((await send(base, '/oauth/v2/token', { from: '127.0.2.2', ...guess(`nobody-${i}`, i) })).status);
      // each worker alone would have let up to 10 through
      expect(statuses.filter((s) => s !== 429)).toHaveLength(10);
      expect(statuses.slice(10).every((s) => s === 429)).toBe(true);
      expect(pidsLogging(proc, /"path":"\/oauth\/v2\/token","status":429/).size).toBe(2);

      // A burst all at once: each worker sends the counts of the requests it holds in one message,
      // and the primary still lets exactly the limit through.
      const burst = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          send(base, '/oauth/v2/token', { from: '127.0.2.3', ...guess(`burst-${i}`, i) }),
        ),
      );
      expect(burst.filter((r) => r.status !== 429)).toHaveLength(10);
      proc.child.kill('SIGTERM');
      expect(await proc.exited).toBe(0);
    });
  }, 120_000);
});
