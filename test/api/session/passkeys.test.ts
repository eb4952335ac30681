import { type Client, Code, type ConnectError } from '@connectrpc/connect';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InstanceService } from '../../../gen/portcullis/instance/v2/instance_service_pb';
import { OIDCService } from '../../../gen/portcullis/oidc/v2/oidc_service_pb';
import {
  MultiFactorType,
  PasswordlessType,
  SecondFactorType,
} from '../../../gen/portcullis/settings/v2/login_settings_pb';
import { SettingsService } from '../../../gen/portcullis/settings/v2/settings_service_pb';
import { SessionService, UserVerificationRequirement } from '../../../gen/portcullis/session/v2/session_service_pb';
import { PasskeyAuthenticatorType } from '../../../gen/portcullis/user/v2/passkeys_pb';
import { UserService } from '../../../gen/portcullis/user/v2/user_service_pb';
import { eventsOf } from '../../helpers/events';
import { addRelyingParty, codeFlowTokens, pkceAuthUrl } from '../../helpers/login-flow';
import { addMachineWithToken } from '../../helpers/machines';
import { addOrg } from '../../helpers/orgs';
import { rows } from '../../helpers/rows';
import { startTestServer, type TestServer } from '../../helpers/server';
import { addUser } from '../../helpers/users';
import { type Json, SoftAuthenticator } from '../../helpers/webauthn';

const codeOf = (p: Promise<unknown>): Promise<Code | 'ok'> =>
  p.then(
    () => 'ok' as const,
    (e: ConnectError) => e.code,
  );

describe('passkeys and security keys: UserService registration, SessionService challenge and check', () => {
  let server: TestServer;
  let config: client.Configuration;
  let rpId: string;
  let origin: string;
  let users: Client<typeof UserService>;
  let sessions: Client<typeof SessionService>;
  beforeAll(async () => {
    server = await startTestServer();
    config = await addRelyingParty(server);
    [{ domain: rpId }] = await rows(server, 'select domain from instances');
    origin = `http://${rpId}:${server.port}`;
    users = server.client(UserService);
    sessions = server.client(SessionService);
  });
  afterAll(() => server?.stop());

  /** A user with a ready credential on a new software authenticator. */
  async function withPasskey(
    type = PasskeyAuthenticatorType.PASSKEY,
    opts: { backupEligible?: boolean; userVerified?: boolean } = {},
  ) {
    const user = await addUser(server);
    const authenticator = new SoftAuthenticator(origin, opts);
    const reg = await users.registerPasskey({ userId: user.id, authenticator: type });
    await users.verifyPasskeyRegistration({
      userId: user.id,
      passkeyId: reg.passkeyId,
      publicKeyCredential: authenticator.create(reg.publicKeyCredentialCreationOptions!),
      passkeyName: 'laptop',
    });
    return { user, authenticator, passkeyId: reg.passkeyId };
  }

  /** A session (naming `userId`, if given) with an open WebAuthn challenge, and its request options. */
  async function challenged(userId?: string, uv = UserVerificationRequirement.REQUIRED) {
    const s = await sessions.createSession({
      checks: userId ? { user: { search: { case: 'userId', value: userId } } } : undefined,
      challenges: { webAuthN: { userVerificationRequirement: uv } },
    });
    const options = s.challenges!.webAuthN!.publicKeyCredentialRequestOptions as Json;
    return { ...s, options };
  }

  const answer = (s: { sessionId: string; sessionToken: string }, assertion: Json) =>
    sessions.setSession({
      sessionId: s.sessionId,
      sessionToken: s.sessionToken,
      checks: { webAuthN: { credentialAssertionData: assertion } },
    });

  it('registration options: a passkey asks for a resident key and user verification, a security key not', async () => {
    const user = await addUser(server);
    const passkey = await users.registerPasskey({ userId: user.id });
    expect(passkey.publicKeyCredentialCreationOptions).toMatchObject({
      rp: { id: rpId },
      authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
    });
    const key = await users.registerPasskey({
      userId: user.id,
      authenticator: PasskeyAuthenticatorType.SECURITY_KEY,
    });
    expect(key.publicKeyCredentialCreationOptions).toMatchObject({
      authenticatorSelection: { residentKey: 'discouraged', userVerification: 'discouraged' },
    });
    // a domain that is not the instance's is refused
    expect(await codeOf(users.registerPasskey({ userId: user.id, domain: 'evil.example.com' }))).toBe(
      Code.InvalidArgument,
    );
    const [row] = await rows(server, `select state, challenge, rp_id from user_factors where id = '${key.passkeyId}'`);
    expect(row).toMatchObject({ state: 'pending', rp_id: rpId });
  });

  it('registers a passkey, lists it, and signs in with it through SessionService without a password', async () => {
    const { user, authenticator, passkeyId } = await withPasskey(PasskeyAuthenticatorType.PASSKEY, {
      backupEligible: true,
    });
    const { passkeys } = await users.listPasskeys({ userId: user.id });
    expect(passkeys).toHaveLength(1);
    expect(passkeys[0]).toMatchObject({
      id: passkeyId,
      name: 'laptop',
      state: 'ready',
      authenticator: PasskeyAuthenticatorType.PASSKEY,
      domain: rpId,
      backupEligible: true,
      transports: ['internal'],
    });

    const { url, verifier } = await pkceAuthUrl(config, { scope: 'openid', state: 'pk' });
    const res = await fetch(url, { redirect: 'manual' });
    const authRequestId = new URL(res.headers.get('location')!, server.url).searchParams.get('authRequest')!;
    // no user named: discoverable credentials, the passkey names the user
    const s = await challenged();
    expect(s.options.allowCredentials ?? []).toEqual([]);
    expect(s.options.rpId).toBe(rpId);
    await answer(s, authenticator.get(s.options));
    const { session } = await sessions.getSession({ sessionId: s.sessionId, sessionToken: s.sessionToken });
    expect(session!.userId).toBe(user.id);

    const { callbackUrl } = await server.client(OIDCService).createCallback({
      authRequestId,
      callbackKind: { case: 'session', value: { sessionId: s.sessionId, sessionToken: s.sessionToken } },
    });
    const back = await fetch(callbackUrl, { redirect: 'manual' });
    const tokens = await client.authorizationCodeGrant(config, new URL(back.headers.get('location')!), {
      pkceCodeVerifier: verifier,
      expectedState: 'pk',
    });
    const claims = tokens.claims()!;
    expect(claims.sub).toBe(user.id);
    expect(claims.amr).toEqual(expect.arrayContaining(['swk', 'user', 'mfa']));
    expect(claims.amr).not.toContain('pwd');

    const [factor] = await rows(server, `select sign_count from user_factors where id = '${passkeyId}'`);
    expect(Number(factor.sign_count)).toBe(1);
    const types = (await eventsOf(server, user.id)).map((e) => e.eventType);
    expect(types).toEqual(expect.arrayContaining(['user.human.passkey.added', 'user.human.passkey.verified']));
    const log = JSON.stringify(await eventsOf(server, user.id));
    expect(log).not.toContain(authenticator.credentials[0].id.toString('base64url'));
  });

  it('a security key after the password: hwk and mfa, no user verification', async () => {
    const { user, authenticator } = await withPasskey(PasskeyAuthenticatorType.SECURITY_KEY, {
      userVerified: false,
    });
    const s = await sessions.createSession({
      checks: { user: { search: { case: 'userId', value: user.id } }, password: { password: user.password } },
      challenges: { webAuthN: { userVerificationRequirement: UserVerificationRequirement.DISCOURAGED } },
    });
    const options = s.challenges!.webAuthN!.publicKeyCredentialRequestOptions as Json;
    expect(options.allowCredentials).toHaveLength(1);
    await answer(s, authenticator.get(options));
    const [row] = await rows(server, `select amr from sessions where id = '${s.sessionId}'`);
    expect(row.amr.sort()).toEqual(['hwk', 'mfa', 'pwd']);
    // a key without user verification cannot answer a challenge that requires it
    const strict = await challenged(user.id, UserVerificationRequirement.REQUIRED);
    expect(await codeOf(answer(strict, authenticator.get(strict.options)))).toBe(Code.InvalidArgument);
  });

  describe('assertions an attacker forges or replays are refused', () => {
    let victim: Awaited<ReturnType<typeof withPasskey>>;
    beforeAll(async () => {
      victim = await withPasskey();
    });

    const refused = async (forge: (s: Awaited<ReturnType<typeof challenged>>) => Json) => {
      const s = await challenged();
      const code = await codeOf(answer(s, forge(s)));
      const { session } = await sessions.getSession({ sessionId: s.sessionId, sessionToken: s.sessionToken });
      expect(session!.userId).toBe('');
      return code;
    };

    it('from another origin', async () => {
      expect(
        await refused((s) => victim.authenticator.get(s.options, { origin: `http://evil.example.com:${server.port}` })),
      ).toBe(Code.InvalidArgument);
    });

    it('for another RP id, even one of the instance', async () => {
      await server.client(InstanceService).addTrustedDomain({ domain: 'other.example.com' });
      expect(await refused((s) => victim.authenticator.get(s.options, { rpId: 'other.example.com' }))).toBe(
        Code.InvalidArgument,
      );
      expect(await refused((s) => victim.authenticator.get(s.options, { rpId: 'evil.example.com' }))).toBe(
        Code.InvalidArgument,
      );
    });

    it('with the challenge of another session', async () => {
      const other = await challenged();
      expect(await refused(() => victim.authenticator.get(other.options))).toBe(Code.InvalidArgument);
    });

    it('replayed: an answer counts once, and an old challenge is gone once replaced', async () => {
      // an authenticator that always reports counter 0 (synced passkeys do): only the challenge stops a replay
      const synced = await withPasskey();
      const s = await challenged();
      const assertion = synced.authenticator.get(s.options, { counter: 0 });
      await answer(s, assertion);
      // the same answer again, on the same session (its challenge is closed) and on a new one
      const replay = await answer(s, assertion).catch((e: ConnectError) => e);
      expect(replay).toMatchObject({ code: Code.FailedPrecondition, rawMessage: expect.stringMatching(/challenge/) });
      expect(await refused(() => assertion)).toBe(Code.InvalidArgument);
      // a challenge replaced by a newer one no longer counts
      const old = await challenged();
      const stale = victim.authenticator.get(old.options);
      await sessions.setSession({
        sessionId: old.sessionId,
        sessionToken: old.sessionToken,
        challenges: { webAuthN: { userVerificationRequirement: UserVerificationRequirement.REQUIRED } },
      });
      expect(await codeOf(answer(old, stale))).toBe(Code.InvalidArgument);
    });

    it('with a signature counter that does not increase (a cloned authenticator)', async () => {
      const s = await challenged();
      await answer(s, victim.authenticator.get(s.options, { counter: 10 }));
      expect(await refused((t) => victim.authenticator.get(t.options, { counter: 10 }))).toBe(Code.FailedPrecondition);
      expect(await refused((t) => victim.authenticator.get(t.options, { counter: 3 }))).toBe(Code.FailedPrecondition);
      const [row] = await rows(server, `select sign_count from user_factors where id = '${victim.passkeyId}'`);
      expect(Number(row.sign_count)).toBe(10);
    });

    it('for a session naming a user, with the credential of another user', async () => {
      const attacker = await withPasskey();
      // the attacker's authenticator answers the victim's challenge with its own credential
      const t = await challenged(victim.user.id);
      const own = attacker.authenticator.credentials[0].id.toString('base64url');
      expect(
        await codeOf(
          answer(t, attacker.authenticator.get({ ...t.options, allowCredentials: [] }, { credentialId: own })),
        ),
      ).toBe(Code.InvalidArgument);
      const [row] = await rows(server, `select factor_checks from sessions where id = '${t.sessionId}'`);
      expect(row.factor_checks.webAuthN).toBeUndefined();
    });
  });

  describe('who may manage a user\u2019s passkeys', () => {
    let orgA: string;
    let adminA: { token: string };
    let adminB: { token: string };
    let plainA: { token: string };
    beforeAll(async () => {
      orgA = (await addOrg(server, 'Passkeys A')).id;
      const orgB = (await addOrg(server, 'Passkeys B')).id;
      adminA = await addMachineWithToken(server, orgA, { roles: ['ORG_OWNER'] });
      adminB = await addMachineWithToken(server, orgB, { roles: ['ORG_OWNER'] });
      plainA = await addMachineWithToken(server, orgA);
    });

    it('an administrator of the user\u2019s organization may; others may not', async () => {
      const user = await addUser(server, { orgId: orgA });
      const own = server.client(UserService, { token: adminA.token });
      const reg = await own.registerPasskey({ userId: user.id });
      await own.verifyPasskeyRegistration({
        userId: user.id,
        passkeyId: reg.passkeyId,
        publicKeyCredential: new SoftAuthenticator(origin).create(reg.publicKeyCredentialCreationOptions!),
        passkeyName: 'by admin',
      });
      const before = (await eventsOf(server, user.id)).length;
      for (const token of [adminB.token, plainA.token]) {
        const other = server.client(UserService, { token });
        expect(await codeOf(other.registerPasskey({ userId: user.id }))).toBe(Code.NotFound);
        expect(await codeOf(other.removePasskey({ userId: user.id, passkeyId: reg.passkeyId }))).toBe(Code.NotFound);
        expect(await codeOf(other.listPasskeys({ userId: user.id }))).toBe(Code.NotFound);
        expect(await codeOf(other.createPasskeyRegistrationLink({ userId: user.id }))).toBe(Code.NotFound);
      }
      const anonymous = server.client(UserService, { token: null });
      expect(await codeOf(anonymous.registerPasskey({ userId: user.id }))).toBe(Code.Unauthenticated);
      expect((await eventsOf(server, user.id)).length).toBe(before);
      expect((await own.listPasskeys({ userId: user.id })).passkeys).toHaveLength(1);
      await own.removePasskey({ userId: user.id, passkeyId: reg.passkeyId });
      expect((await own.listPasskeys({ userId: user.id })).passkeys).toHaveLength(0);
      expect((await eventsOf(server, user.id)).map((e) => e.eventType)).toContain('user.human.passkey.removed');
    });

    it('a user manages its own passkeys with its own token, and not another user\u2019s', async () => {
      const user = await addUser(server, { orgId: orgA });
      const other = await addUser(server, { orgId: orgA });
      const rp = await addRelyingParty(server, { basicAuth: true, apiClient: true });
      const { tokens } = await codeFlowTokens(server, rp, user, {
        scope: 'openid urn:service:iam:org:project:id:api:aud',
      });
      const self = server.client(UserService, { token: tokens.access_token });
      const reg = await self.registerPasskey({ userId: user.id });
      await self.verifyPasskeyRegistration({
        userId: user.id,
        passkeyId: reg.passkeyId,
        publicKeyCredential: new SoftAuthenticator(origin).create(reg.publicKeyCredentialCreationOptions!),
        passkeyName: 'mine',
      });
      expect((await self.listPasskeys({ userId: user.id })).passkeys).toHaveLength(1);
      expect(await codeOf(self.registerPasskey({ userId: other.id }))).toBe(Code.NotFound);
      expect(await codeOf(self.listPasskeys({ userId: other.id }))).toBe(Code.NotFound);
      // onboarding links are for administrators
      expect(await codeOf(self.createPasskeyRegistrationLink({ userId: user.id }))).toBe(Code.PermissionDenied);
      await self.removePasskey({ userId: user.id, passkeyId: reg.passkeyId });
    });

    it('while the organization forces MFA, the last passkey cannot be removed', async () => {
      const org = await addOrg(server, 'Passkeys forced');
      await server.client(SettingsService).setOrganizationLoginSettings({
        organizationId: org.id,
        settings: {
          allowUsernamePassword: true,
          passwordlessType: PasswordlessType.ALLOWED,
          forceMfa: true,
          secondFactors: [SecondFactorType.U2F],
          multiFactors: [MultiFactorType.U2F_WITH_VERIFICATION],
        },
      });
      const user = await addUser(server, { orgId: org.id });
      const ids: string[] = [];
      for (const name of ['one', 'two']) {
        const reg = await users.registerPasskey({ userId: user.id });
        await users.verifyPasskeyRegistration({
          userId: user.id,
          passkeyId: reg.passkeyId,
          publicKeyCredential: new SoftAuthenticator(origin).create(reg.publicKeyCredentialCreationOptions!),
          passkeyName: name,
        });
        ids.push(reg.passkeyId);
      }
      await users.removePasskey({ userId: user.id, passkeyId: ids[0] });
      expect(await codeOf(users.removePasskey({ userId: user.id, passkeyId: ids[1] }))).toBe(Code.FailedPrecondition);
      expect((await users.listPasskeys({ userId: user.id })).passkeys.map((p) => p.id)).toEqual([ids[1]]);
    });

    it('a registration link: the code lets the login UI register for the user, once', async () => {
      const user = await addUser(server, { orgId: orgA });
      const own = server.client(UserService, { token: adminA.token });
      // sent by email: the outbox holds a link to the hosted login's registration page
      await own.createPasskeyRegistrationLink({ userId: user.id });
      const [mail] = await rows(
        server,
        `select body from notifications where user_id = '${user.id}' and kind = 'PASSKEY_REGISTRATION'`,
      );
      expect(mail.body).toContain('/ui/login/passkey-registration?userId=');
      const { code } = await own.createPasskeyRegistrationLink({
        userId: user.id,
        medium: { case: 'returnCode', value: {} },
      });
      expect(code).toMatch(/^[A-Z0-9]{8}$/);

      // the login UI (user.write on the instance, here the bootstrap IAM_OWNER) acts with the code
      const loginUi = await addMachineWithToken(server, orgA, { roles: ['IAM_USER_MANAGER'] });
      const ui = server.client(UserService, { token: loginUi.token });
      expect(await codeOf(ui.registerPasskey({ userId: user.id, code: 'WRONG123' }))).toBe(Code.InvalidArgument);
      // a caller that is not a login UI may not use a code, even the right one
      expect(
        await codeOf(server.client(UserService, { token: plainA.token }).registerPasskey({ userId: user.id, code })),
      ).toBe(Code.PermissionDenied);
      const authenticator = new SoftAuthenticator(origin);
      const reg = await ui.registerPasskey({ userId: user.id, code });
      const credential = authenticator.create(reg.publicKeyCredentialCreationOptions!);
      await ui.verifyPasskeyRegistration({
        userId: user.id,
        passkeyId: reg.passkeyId,
        publicKeyCredential: credential,
        passkeyName: 'onboarded',
        code,
      });
      // used: neither registration nor verification accept it again
      expect(await codeOf(ui.registerPasskey({ userId: user.id, code }))).toBe(Code.InvalidArgument);
      const again = await users.registerPasskey({ userId: user.id });
      expect(
        await codeOf(
          ui.verifyPasskeyRegistration({
            userId: user.id,
            passkeyId: again.passkeyId,
            publicKeyCredential: authenticator.create(again.publicKeyCredentialCreationOptions!),
            passkeyName: 'again',
            code,
          }),
        ),
      ).toBe(Code.InvalidArgument);
      const log = JSON.stringify(await eventsOf(server, user.id));
      expect(log).not.toContain(code);
    });
  });
});
