import { type Client, Code, type ConnectError } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionService } from '../../../gen/portcullis/session/v2/session_service_pb';
import { UserService } from '../../../gen/portcullis/user/v2/user_service_pb';
import { defaultOrgId } from '../../helpers/context';
import { eventsOf } from '../../helpers/events';
import { rows } from '../../helpers/rows';
import { addRelyingParty, codeFlowTokens } from '../../helpers/login-flow';
import { addMachineWithToken } from '../../helpers/machines';
import { addOrg } from '../../helpers/orgs';
import { startTestServer, type TestServer } from '../../helpers/server';
import { totpCode } from '../../helpers/totp';
import { addUser } from '../../helpers/users';

const codeOf = (p: Promise<unknown>): Promise<Code | 'ok'> =>
  p.then(
    () => 'ok' as const,
    (e: ConnectError) => e.code,
  );

describe('UserService second factors: TOTP, email and SMS codes, recovery codes', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.stop());

  it('a user registers its own authenticator app: URI, QR code, secret; a code makes it ready', async () => {
    const user = await addUser(server);
    const config = await addRelyingParty(server, { basicAuth: true, apiClient: true });
    const { tokens } = await codeFlowTokens(server, config, user, {
      scope: 'openid urn:service:iam:org:project:id:api:aud',
    });
    const self = server.client(UserService, { token: tokens.access_token });
    const reg = await self.registerTOTP({ userId: user.id });
    const uri = new URL(reg.uri);
    expect(uri.protocol).toBe('otpauth:');
    expect(uri.host).toBe('totp');
    expect(uri.searchParams.get('secret')).toBe(reg.secret);
    expect(uri.searchParams.get('issuer')).toBeTruthy();
    expect(decodeURIComponent(uri.pathname)).toContain(`${user.username}@`);
    expect(reg.qrCode).toMatch(/^data:image\/svg\+xml;base64,/);
    expect(Buffer.from(reg.qrCode.split(',')[1], 'base64').toString()).toContain('<svg');

    expect(await codeOf(self.verifyTOTPRegistration({ userId: user.id, code: '000000' }))).toBe(Code.InvalidArgument);
    await self.verifyTOTPRegistration({ userId: user.id, code: await totpCode(reg.secret) });
    // a second registration while one is ready is refused
    expect(await codeOf(self.registerTOTP({ userId: user.id }))).toBe(Code.AlreadyExists);

    // the app now signs in through SessionService (the next step's code: the current one was used)
    const sessions = server.client(SessionService);
    const s = await sessions.createSession({
      checks: { user: { search: { case: 'userId', value: user.id } }, password: { password: user.password } },
    });
    await sessions.setSession({
      sessionId: s.sessionId,
      sessionToken: s.sessionToken,
      checks: { totp: { code: await totpCode(reg.secret, 1) } },
    });
    const [row] = await rows(server, `select amr, factor_checks from sessions where id = '${s.sessionId}'`);
    expect(row.amr).toEqual(expect.arrayContaining(['pwd', 'otp', 'mfa']));
    expect(Object.keys(row.factor_checks).sort()).toEqual(['password', 'totp']);

    await self.removeTOTP({ userId: user.id });
    expect(await codeOf(self.removeTOTP({ userId: user.id }))).toBe(Code.NotFound);

    const types = (await eventsOf(server, user.id)).map((e) => e.eventType);
    expect(types).toEqual(
      expect.arrayContaining(['user.human.mfa.otp.added', 'user.human.mfa.otp.verified', 'user.human.mfa.otp.removed']),
    );
    const log = JSON.stringify(await eventsOf(server, user.id));
    expect(log).not.toContain(reg.secret);
  });

  it('email codes need a verified email, SMS codes a verified phone', async () => {
    const iam = server.client(UserService);
    const withPhone = await iam.createUser({
      organizationId: await defaultOrgId(server),
      username: 'phone-user',
      userType: {
        case: 'human',
        value: {
          profile: { givenName: 'P', familyName: 'Q' },
          email: { email: 'phone-user@example.com', verification: { case: 'sendCode', value: {} } },
          phone: { phone: '+41 79 000 00 00', verification: { case: 'isVerified', value: true } },
        },
      },
    });
    expect(await codeOf(iam.addOTPEmail({ userId: withPhone.id }))).toBe(Code.FailedPrecondition);
    await iam.addOTPSMS({ userId: withPhone.id });
    expect(await codeOf(iam.addOTPSMS({ userId: withPhone.id }))).toBe(Code.AlreadyExists);
    await iam.removeOTPSMS({ userId: withPhone.id });
    expect(await codeOf(iam.removeOTPSMS({ userId: withPhone.id }))).toBe(Code.NotFound);

    const user = await addUser(server);
    expect(await codeOf(iam.addOTPSMS({ userId: user.id }))).toBe(Code.FailedPrecondition);
    await iam.addOTPEmail({ userId: user.id });
    await iam.removeOTPEmail({ userId: user.id });
  });

  it('deleting a user deletes its second factors and recovery codes with it', async () => {
    const user = await addUser(server);
    const iam = server.client(UserService);
    const reg = await iam.registerTOTP({ userId: user.id });
    await iam.verifyTOTPRegistration({ userId: user.id, code: await totpCode(reg.secret) });
    await iam.generateRecoveryCodes({ userId: user.id });
    await iam.deleteUser({ userId: user.id });
    expect(await rows(server, `select id from user_factors where user_id = '${user.id}'`)).toEqual([]);
    expect(await rows(server, `select id from recovery_codes where user_id = '${user.id}'`)).toEqual([]);
  });

  it('recovery codes: ten, shown once, stored hashed; a new set replaces the old one', async () => {
    const user = await addUser(server);
    const iam = server.client(UserService);
    const first = await iam.generateRecoveryCodes({ userId: user.id });
    expect(first.recoveryCodes).toHaveLength(10);
    expect(new Set(first.recoveryCodes).size).toBe(10);
    const second = await iam.generateRecoveryCodes({ userId: user.id });
    const sessions = server.client(SessionService);
    const s = await sessions.createSession({ checks: { user: { search: { case: 'userId', value: user.id } } } });
    const check = (code: string) =>
      codeOf(
        sessions.setSession({
          sessionId: s.sessionId,
          sessionToken: s.sessionToken,
          checks: { recoveryCode: { code } },
        }),
      );
    expect(await check(first.recoveryCodes[0])).toBe(Code.InvalidArgument);
    expect(await check(second.recoveryCodes[0])).toBe('ok');
    expect(JSON.stringify(await eventsOf(server, user.id))).not.toContain(second.recoveryCodes[1]);
    await iam.removeRecoveryCodes({ userId: user.id });
    expect(await check(second.recoveryCodes[1])).toBe(Code.InvalidArgument);
    expect(await codeOf(iam.removeRecoveryCodes({ userId: user.id }))).toBe(Code.NotFound);
  });

  describe('who may manage a user\u2019s second factors', () => {
    let orgA: string;
    let orgB: string;
    let adminA: { token: string };
    let adminB: { token: string };
    let plainA: { token: string };

    beforeAll(async () => {
      orgA = (await addOrg(server, 'Factors A')).id;
      orgB = (await addOrg(server, 'Factors B')).id;
      adminA = await addMachineWithToken(server, orgA, { roles: ['ORG_OWNER'] });
      adminB = await addMachineWithToken(server, orgB, { roles: ['ORG_OWNER'] });
      plainA = await addMachineWithToken(server, orgA);
    });

    const attempts = (users: Client<typeof UserService>, userId: string) => [
      () => users.registerTOTP({ userId }),
      () => users.removeTOTP({ userId }),
      () => users.generateRecoveryCodes({ userId }),
      () => users.removeRecoveryCodes({ userId }),
      () => users.addOTPEmail({ userId }),
      () => users.removeOTPEmail({ userId }),
    ];

    it('an administrator of the user\u2019s organization may', async () => {
      const user = await addUser(server, { orgId: orgA });
      const users = server.client(UserService, { token: adminA.token });
      await users.registerTOTP({ userId: user.id });
      await users.removeTOTP({ userId: user.id });
      await users.generateRecoveryCodes({ userId: user.id });
      await users.addOTPEmail({ userId: user.id });
    });

    it('another organization\u2019s administrator may not (NOT_FOUND), and nothing changes', async () => {
      const user = await addUser(server, { orgId: orgA });
      const iam = server.client(UserService);
      await iam.generateRecoveryCodes({ userId: user.id });
      const reg = await iam.registerTOTP({ userId: user.id });
      await iam.verifyTOTPRegistration({ userId: user.id, code: await totpCode(reg.secret) });
      const before = (await eventsOf(server, user.id)).length;
      for (const p of attempts(server.client(UserService, { token: adminB.token }), user.id))
        expect(await codeOf(p())).toBe(Code.NotFound);
      expect(
        await codeOf(
          server
            .client(UserService, { token: adminB.token })
            .verifyTOTPRegistration({ userId: user.id, code: '123456' }),
        ),
      ).toBe(Code.NotFound);
      expect((await eventsOf(server, user.id)).length).toBe(before);
    });

    it('a plain user may not for another user; without a token nobody may', async () => {
      const user = await addUser(server, { orgId: orgA });
      for (const p of attempts(server.client(UserService, { token: plainA.token }), user.id))
        expect([Code.NotFound, Code.PermissionDenied]).toContain(await codeOf(p()));
      for (const p of attempts(server.client(UserService, { token: null }), user.id))
        expect(await codeOf(p())).toBe(Code.Unauthenticated);
    });

    it('a signed-in user may not for another user of its organization', async () => {
      const me = await addUser(server);
      const other = await addUser(server);
      const config = await addRelyingParty(server, { basicAuth: true, apiClient: true });
      const { tokens } = await codeFlowTokens(server, config, me, {
        scope: 'openid urn:service:iam:org:project:id:api:aud',
      });
      const self = server.client(UserService, { token: tokens.access_token });
      for (const p of attempts(self, other.id))
        expect([Code.NotFound, Code.PermissionDenied]).toContain(await codeOf(p()));
      await self.generateRecoveryCodes({ userId: me.id });
    });
  });
});
