import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { type Client, Code, type ConnectError } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SessionService } from '../../../gen/portcullis/session/v2/session_service_pb';
import { UserService } from '../../../gen/portcullis/user/v2/user_service_pb';
import { updateInstanceSettings } from '../../../src/domain/instance/update-settings';
import { defaultOrgId, systemCtx } from '../../helpers/context';
import { eventsOf } from '../../helpers/events';
import { rows } from '../../helpers/rows';
import { startTestServer, type TestServer } from '../../helpers/server';
import { totpCode } from '../../helpers/totp';
import { addUser } from '../../helpers/users';
import { FIXTURES, portcullis, tempDir, writeExport } from '../../migrate/run-cli';
import { human, post } from '../../v1/helpers';

const codeOf = (p: Promise<unknown>): Promise<Code | 'ok'> =>
  p.then(
    () => 'ok' as const,
    (e: ConnectError) => e.code,
  );

const byId = (userId: string) => ({ search: { case: 'userId' as const, value: userId } });

describe('SessionService second-factor checks and challenges', () => {
  let server: TestServer;
  let sessions: Client<typeof SessionService>;
  let users: Client<typeof UserService>;
  let receiver: Server;
  const texts: { auth?: string; body: { to: string; text: string; id: string } }[] = [];

  beforeAll(async () => {
    // A real SMS gateway: answers 503 to the first request (the outbox retries), 200 after.
    let calls = 0;
    receiver = createServer((req, res) => {
      let data = '';
      req.on('data', (c) => (data += c));
      req.on('end', () => {
        calls++;
        if (calls === 1) return res.writeHead(503).end();
        texts.push({ auth: req.headers.authorization, body: JSON.parse(data) });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((ok) => receiver.listen(0, '127.0.0.1', ok));
    const { port } = receiver.address() as AddressInfo;
    server = await startTestServer({
      PORTCULLIS_SMS_HTTP_URL: `http://127.0.0.1:${port}/sms`,
      PORTCULLIS_SMS_HTTP_TOKEN: 'gateway-token',
    });
    sessions = server.client(SessionService);
    users = server.client(UserService);
  });
  afterAll(async () => {
    await server?.stop();
    await new Promise((ok) => receiver?.close(ok));
  });

  /** A user with a ready authenticator app; returns its secret (the registration used the current step). */
  async function withTotp() {
    const user = await addUser(server);
    const reg = await users.registerTOTP({ userId: user.id });
    await users.verifyTOTPRegistration({ userId: user.id, code: await totpCode(reg.secret) });
    return { ...user, secret: reg.secret };
  }

  async function passwordSession(user: { id: string; password: string }) {
    return sessions.createSession({ checks: { user: byId(user.id), password: { password: user.password } } });
  }

  const setCheck = (s: { sessionId: string; sessionToken: string }, checks: Record<string, unknown>) =>
    codeOf(sessions.setSession({ sessionId: s.sessionId, sessionToken: s.sessionToken, checks }));

  it('a TOTP code is usable once; a replay, a code two steps old and a wrong code are refused', async () => {
    const user = await withTotp();
    const s = await passwordSession(user);
    const next = await totpCode(user.secret, 1);
    expect(await setCheck(s, { totp: { code: await totpCode(user.secret) } })).toBe(Code.InvalidArgument); // used
    expect(await setCheck(s, { totp: { code: next } })).toBe('ok');
    expect(await setCheck(s, { totp: { code: next } })).toBe(Code.InvalidArgument);
    const other = await withTotp();
    const s2 = await passwordSession(other);
    expect(await setCheck(s2, { totp: { code: await totpCode(other.secret, -2) } })).toBe(Code.InvalidArgument);
    expect(await setCheck(s2, { totp: { code: await totpCode(other.secret, 2) } })).toBe(Code.InvalidArgument);
    expect(await setCheck(s2, { totp: { code: 'abcdef' } })).toBe(Code.InvalidArgument);
    const [row] = await rows(server, `select failed_otp_attempts from users where id = '${other.id}'`);
    expect(row.failed_otp_attempts).toBe(3);
    // a right code resets the count
    expect(await setCheck(s2, { totp: { code: await totpCode(other.secret, 1) } })).toBe('ok');
    const [after] = await rows(server, `select failed_otp_attempts from users where id = '${other.id}'`);
    expect(after.failed_otp_attempts).toBe(0);
  });

  it('concurrent replays of one TOTP code: exactly one wins', async () => {
    const user = await withTotp();
    const code = await totpCode(user.secret, 1);
    const many = await Promise.all(Array.from({ length: 6 }, () => passwordSession(user)));
    const results = await Promise.all(many.map((s) => setCheck(s, { totp: { code } })));
    expect(results.filter((r) => r === 'ok')).toHaveLength(1);
  });

  it('a failing second-factor check in CreateSession leaves no live session', async () => {
    const user = await withTotp();
    const before = await rows(server, `select id from sessions where user_id = '${user.id}' and terminated_at is null`);
    const r = await codeOf(
      sessions.createSession({
        checks: { user: byId(user.id), password: { password: user.password }, totp: { code: '000000' } },
      }),
    );
    expect(r).toBe(Code.InvalidArgument);
    const after = await rows(server, `select id from sessions where user_id = '${user.id}' and terminated_at is null`);
    expect(after.length).toBe(before.length);
  });

  it('wrong codes lock the user at lockoutMaxOtpAttempts; then right and wrong codes get the same answer', async () => {
    await updateInstanceSettings(systemCtx(server), { lockoutMaxOtpAttempts: 3 });
    try {
      const user = await withTotp();
      const s = await passwordSession(user);
      const answers = [];
      for (let i = 0; i < 3; i++) answers.push(await setCheck(s, { totp: { code: '000000' } }));
      expect(answers).toEqual([Code.InvalidArgument, Code.InvalidArgument, Code.FailedPrecondition]);
      const right = await setCheck(s, { totp: { code: await totpCode(user.secret, 1) } });
      const wrong = await setCheck(s, { totp: { code: '111111' } });
      expect([right, wrong]).toEqual([Code.FailedPrecondition, Code.FailedPrecondition]);
      const types = (await eventsOf(server, user.id)).map((e) => e.eventType);
      expect(types.filter((t) => t === 'user.human.mfa.check.failed')).toHaveLength(3);
      expect(types).toContain('user.locked');
      // the password check says locked too, and an unlock resets the count
      expect(await codeOf(passwordSession(user))).toBe(Code.FailedPrecondition);
      await users.unlockUser({ userId: user.id });
      const s2 = await passwordSession(user);
      expect(await setCheck(s2, { totp: { code: await totpCode(user.secret, 1) } })).toBe('ok');
    } finally {
      await updateInstanceSettings(systemCtx(server), { lockoutMaxOtpAttempts: 5 });
    }
  });

  it('email codes: sent through the outbox, five minutes valid, single use, one per 30 s', async () => {
    const user = await addUser(server);
    await users.addOTPEmail({ userId: user.id });
    const s = await passwordSession(user);
    const send = { otpEmail: { deliveryType: { case: 'sendCode' as const, value: {} } } };
    await sessions.setSession({ sessionId: s.sessionId, sessionToken: s.sessionToken, challenges: send });
    const [mail] = await rows(
      server,
      `select recipient, body from notifications where user_id = '${user.id}' and kind = 'OTP_EMAIL'`,
    );
    expect(mail.recipient).toBe(`${user.username}@example.com`);
    const code = /sign-in code is: (\d{6})/.exec(mail.body)![1];
    // one new code per 30 seconds
    const again = await codeOf(
      sessions.setSession({ sessionId: s.sessionId, sessionToken: s.sessionToken, challenges: send }),
    );
    expect(again).toBe(Code.ResourceExhausted);
    expect(await setCheck(s, { otpEmail: { code: code === '000000' ? '000001' : '000000' } })).toBe(
      Code.InvalidArgument,
    );
    expect(await setCheck(s, { otpEmail: { code } })).toBe('ok');
    expect(await setCheck(s, { otpEmail: { code } })).toBe(Code.InvalidArgument);
    const [row] = await rows(server, `select amr, challenges from sessions where id = '${s.sessionId}'`);
    expect(row.amr).toEqual(expect.arrayContaining(['pwd', 'otp', 'mfa']));
    expect(row.challenges).toEqual({});
    expect(JSON.stringify(await eventsOf(server, user.id))).not.toContain(code);
  });

  it('an expired email code is refused', async () => {
    const user = await addUser(server);
    await users.addOTPEmail({ userId: user.id });
    const s = await sessions.createSession({
      checks: { user: byId(user.id) },
      challenges: { otpEmail: { deliveryType: { case: 'returnCode', value: {} } } },
    });
    const code = s.challenges!.otpEmail;
    expect(code).toMatch(/^\d{6}$/);
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(Date.now() + 5 * 60_000 + 1000);
      expect(await setCheck(s, { otpEmail: { code } })).toBe(Code.InvalidArgument);
    } finally {
      vi.useRealTimers();
    }
  });

  it('an email challenge needs the factor; SMS codes reach the HTTP gateway (retried after a failure)', async () => {
    const plain = await addUser(server);
    const refused = await codeOf(
      sessions.createSession({
        checks: { user: byId(plain.id) },
        challenges: { otpEmail: { deliveryType: { case: 'returnCode', value: {} } } },
      }),
    );
    expect(refused).toBe(Code.FailedPrecondition);

    const { id } = await users.createUser({
      organizationId: await defaultOrgId(server),
      username: 'sms-user',
      userType: {
        case: 'human',
        value: {
          profile: { givenName: 'S', familyName: 'M' },
          email: { email: 'sms-user@example.com', verification: { case: 'isVerified', value: true } },
          phone: { phone: '+41 79 123 45 67', verification: { case: 'isVerified', value: true } },
        },
      },
    });
    await users.addOTPSMS({ userId: id });
    const s = await sessions.createSession({
      checks: { user: byId(id) },
      challenges: { otpSms: { deliveryType: { case: 'sendCode', value: {} } } },
    });
    expect(s.challenges?.otpSms).toBe('');
    // the outbox delivers every second; the gateway refuses the first attempt, the retry comes ~20 s later
    await vi.waitFor(() => expect(texts.length).toBe(1), { timeout: 40_000, interval: 250 });
    expect(texts[0].auth).toBe('Bearer gateway-token');
    expect(texts[0].body.to).toBe('+41 79 123 45 67');
    const code = /^(\d{6}) is your/.exec(texts[0].body.text)![1];
    expect(await setCheck(s, { otpSms: { code } })).toBe('ok');
    const [row] = await rows(server, `select amr from sessions where id = '${s.sessionId}'`);
    expect(row.amr).toEqual(expect.arrayContaining(['otp', 'sms']));
  }, 60_000);

  it('a recovery code works once, also when two requests race', async () => {
    const user = await addUser(server);
    const { recoveryCodes } = await users.generateRecoveryCodes({ userId: user.id });
    const many = await Promise.all(Array.from({ length: 4 }, () => passwordSession(user)));
    const results = await Promise.all(many.map((s) => setCheck(s, { recoveryCode: { code: recoveryCodes[3] } })));
    expect(results.filter((r) => r === 'ok')).toHaveLength(1);
    // typed in lower case without the dash: the same code
    const s = await passwordSession(user);
    expect(await setCheck(s, { recoveryCode: { code: recoveryCodes[4].toLowerCase().replace('-', '') } })).toBe('ok');
  });

  it('an imported otpCode is a ready authenticator app at the next sign-in', async () => {
    const secret = 'JBSWY3DPEHPK3PXPJBSWY3DP';
    const res = await post(server, '/admin/v1/import', {
      dataOrgs: {
        orgs: [
          {
            orgId: 'otp-import-org',
            org: { name: 'OTP Import' },
            humanUsers: [human('otp-imported', 'otp-imported', { otpCode: secret, password: 'Imported-Passw0rd!' })],
          },
        ],
      },
    });
    expect(res.body.success.orgs[0].humanUserIds).toEqual(['otp-imported']);
    const s = await sessions.createSession({
      checks: { user: byId('otp-imported'), password: { password: 'Imported-Passw0rd!' } },
    });
    expect(await setCheck(s, { totp: { code: '000000' } })).toBe(Code.InvalidArgument);
    expect(await setCheck(s, { totp: { code: await totpCode(secret) } })).toBe('ok');
  });

  it('a Keycloak user with an OTP credential signs in with password and TOTP after the migration', async () => {
    const raw = 'kc-otp-secret-0123456'; // Keycloak keeps the key as text
    const exported = JSON.parse(readFileSync(join(FIXTURES, 'kc11-users-0.json'), 'utf8'));
    const kcUser = exported.users.find((u: { username: string }) => u.username === 'user');
    kcUser.credentials.push({
      type: 'otp',
      userLabel: 'phone',
      createdDate: 1700000000000,
      secretData: JSON.stringify({ value: raw }),
      credentialData: JSON.stringify({ subType: 'totp', digits: 6, counter: 0, period: 30, algorithm: 'HmacSHA1' }),
    });
    const dir = tempDir();
    const file = writeExport(dir, 'with-otp-users-0.json', exported);
    const tokenFile = writeExport(dir, 'admin.pat', `${server.pat}\n`);
    const run = await portcullis([
      'migrate',
      'keycloak',
      '--org=kc-otp-org',
      `--realm=${file}`,
      `--url=${server.url}`,
      `--token-file=${tokenFile}`,
    ]);
    expect(run.code, run.stderr).toBe(0);
    const [imported] = await rows(server, `select id from users where username = 'user' and org_id = 'kc-otp-org'`);
    const s = await passwordSession({ id: imported.id, password: 'user' });
    expect(await setCheck(s, { totp: { code: await totpCode(new TextEncoder().encode(raw)) } })).toBe('ok');
  }, 60_000);
});
