import { Code } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthenticationMethodType as T } from '../../../gen/portcullis/user/v2/authentication_methods_pb';
import { UserService } from '../../../gen/portcullis/user/v2/user_service_pb';
import {
  MultiFactorType,
  PasswordlessType,
  SecondFactorType,
} from '../../../gen/portcullis/settings/v2/login_settings_pb';
import { SettingsService } from '../../../gen/portcullis/settings/v2/settings_service_pb';
import { factorRemovalRefusal } from '../../../src/domain/policy/factor-removal';
import { addReadyFactor, addRecoveryCode } from '../../helpers/factors';
import { addMachineWithToken } from '../../helpers/machines';
import { addOrg } from '../../helpers/orgs';
import { startTestServer, type TestServer } from '../../helpers/server';
import { addUser } from '../../helpers/users';
import { sourceOf } from '../../../src/deps';

const POLICY = {
  allowUsernamePassword: true,
  passwordlessType: PasswordlessType.ALLOWED,
  forceMfa: true,
  forceMfaLocalOnly: false,
  secondFactors: [SecondFactorType.TOTP, SecondFactorType.U2F],
  multiFactors: [MultiFactorType.U2F_WITH_VERIFICATION],
  passwordCheckLifetimeSeconds: 0,
  secondFactorCheckLifetimeSeconds: 0,
  multiFactorCheckLifetimeSeconds: 0,
  mfaInitSkipLifetimeSeconds: 0,
};

describe('authentication methods of a user', () => {
  let server: TestServer;
  let org: { id: string };
  let other: { id: string };
  beforeAll(async () => {
    server = await startTestServer();
    org = await addOrg(server, 'Methods Org');
    other = await addOrg(server, 'Methods Other');
  });
  afterAll(() => server?.stop());

  it('ListAuthenticationMethodTypes lists the ready kinds once each, in order', async () => {
    const user = await addUser(server, { orgId: org.id });
    const users = server.client(UserService);
    expect((await users.listAuthenticationMethodTypes({ userId: user.id })).authMethodTypes).toEqual([T.PASSWORD]);
    await addReadyFactor(server, user, 'totp');
    await addReadyFactor(server, user, 'webauthn', { passwordless: true });
    await addReadyFactor(server, user, 'webauthn', { passwordless: true });
    await addReadyFactor(server, user, 'webauthn');
    await addReadyFactor(server, user, 'otp_sms');
    await addRecoveryCode(server, user.id);
    expect((await users.listAuthenticationMethodTypes({ userId: user.id })).authMethodTypes).toEqual([
      T.PASSWORD,
      T.PASSKEY,
      T.TOTP,
      T.U2F,
      T.OTP_SMS,
      T.RECOVERY_CODES,
    ]);
  });

  it('the user itself and user.read administrators read them; others do not', async () => {
    const user = await addUser(server, { orgId: org.id });
    const self = await addMachineWithToken(server, org.id);
    const asSelf = server.client(UserService, { token: self.token });
    expect((await asSelf.listAuthenticationMethodTypes({ userId: self.userId })).authMethodTypes).toEqual([]);
    // a plain user on someone else: not found
    await expect(asSelf.listAuthenticationMethodTypes({ userId: user.id })).rejects.toMatchObject({
      code: Code.NotFound,
    });
    const manager = await addMachineWithToken(server, org.id, { roles: ['ORG_USER_MANAGER'] });
    const asManager = server.client(UserService, { token: manager.token });
    expect((await asManager.listAuthenticationMethodTypes({ userId: user.id })).authMethodTypes).toEqual([T.PASSWORD]);
    // another organization's owner
    const foreign = await addMachineWithToken(server, other.id, { roles: ['ORG_OWNER'] });
    await expect(
      server.client(UserService, { token: foreign.token }).listAuthenticationMethodTypes({ userId: user.id }),
    ).rejects.toMatchObject({ code: Code.NotFound });
    await expect(
      server.client(UserService, { token: null }).listAuthenticationMethodTypes({ userId: user.id }),
    ).rejects.toMatchObject({ code: Code.Unauthenticated });
  });

  it('factorRemovalRefusal: the last second factor under force MFA is refused, another one saves it', async () => {
    const settings = server.client(SettingsService);
    const user = await addUser(server, { orgId: org.id });
    const src = sourceOf(server.app.deps);
    const totp = await addReadyFactor(server, user, 'totp');
    await addRecoveryCode(server, user.id);
    // MFA not forced: anything may go
    expect(await factorRemovalRefusal(src, user, { id: totp })).toBeUndefined();
    await settings.setOrganizationLoginSettings({ organizationId: org.id, settings: POLICY });
    try {
      const refusal = await factorRemovalRefusal(src, user, { id: totp });
      expect(refusal).toMatchObject({ kind: 'failed_precondition', key: 'Errors.User.MFA.LastFactor' });
      expect(refusal?.message).toMatch(/last second factor/);
      expect(await factorRemovalRefusal(src, user, { type: 'totp' })).toBeDefined();
      // recovery codes are a fallback: removing them is fine, and they do not save the last factor
      expect(await factorRemovalRefusal(src, user, { type: 'recovery_codes' })).toBeUndefined();
      // a second factor the policy accepts: either may go
      const key = await addReadyFactor(server, user, 'webauthn');
      expect(await factorRemovalRefusal(src, user, { id: totp })).toBeUndefined();
      expect(await factorRemovalRefusal(src, user, { id: key })).toBeUndefined();
      // removing every WebAuthn credential at once leaves TOTP
      expect(await factorRemovalRefusal(src, user, { type: 'webauthn' })).toBeUndefined();
      // a factor the policy does not accept does not count
      const sms = await addReadyFactor(server, user, 'otp_sms');
      expect(await factorRemovalRefusal(src, user, { id: sms })).toBeUndefined();
      await settings.setOrganizationLoginSettings({
        organizationId: org.id,
        settings: { ...POLICY, secondFactors: [SecondFactorType.TOTP] },
      });
      expect(await factorRemovalRefusal(src, user, { id: totp })).toBeDefined();
    } finally {
      await settings.resetOrganizationLoginSettings({ organizationId: org.id });
    }
    // the instance default decides again (not forced)
    expect(await factorRemovalRefusal(src, user, { id: totp })).toBeUndefined();
  });
});
