import { Code } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  MultiFactorType,
  PasswordlessType,
  SecondFactorType,
} from '../../../gen/portcullis/settings/v2/login_settings_pb';
import { SettingsService } from '../../../gen/portcullis/settings/v2/settings_service_pb';
import { defaultOrgId } from '../../helpers/context';
import { eventsSince, lastPosition } from '../../helpers/events';
import { addMachineWithToken } from '../../helpers/machines';
import { addOrg } from '../../helpers/orgs';
import { startTestServer, type TestServer } from '../../helpers/server';

const POLICY = {
  allowUsernamePassword: true,
  passwordlessType: PasswordlessType.ALLOWED,
  forceMfa: true,
  forceMfaLocalOnly: false,
  secondFactors: [SecondFactorType.TOTP, SecondFactorType.OTP_EMAIL],
  multiFactors: [MultiFactorType.U2F_WITH_VERIFICATION],
  passwordCheckLifetimeSeconds: 3600,
  secondFactorCheckLifetimeSeconds: 1800,
  multiFactorCheckLifetimeSeconds: 900,
  mfaInitSkipLifetimeSeconds: 0,
};

describe('SettingsService login settings', () => {
  let server: TestServer;
  let settings: ReturnType<typeof server.client<typeof SettingsService>>;
  let acme: { id: string };
  let other: { id: string };
  beforeAll(async () => {
    server = await startTestServer();
    settings = server.client(SettingsService);
    acme = await addOrg(server, 'Acme Policy');
    other = await addOrg(server, 'Other Policy');
  });
  afterAll(() => server?.stop());

  it('answers the defaults for the instance and an organization, both inherited', async () => {
    const instance = await settings.getLoginSettings({});
    expect(instance.inherited).toBe(true);
    expect(instance.settings).toMatchObject({
      allowUsernamePassword: true,
      passwordlessType: PasswordlessType.ALLOWED,
      forceMfa: false,
      secondFactors: [
        SecondFactorType.TOTP,
        SecondFactorType.U2F,
        SecondFactorType.OTP_EMAIL,
        SecondFactorType.OTP_SMS,
      ],
      multiFactors: [MultiFactorType.U2F_WITH_VERIFICATION],
      mfaInitSkipLifetimeSeconds: 30 * 24 * 3600,
    });
    const org = await settings.getLoginSettings({ organizationId: acme.id });
    expect(org).toMatchObject({ inherited: true, settings: instance.settings });
  });

  it('sets the default, which organizations without their own inherit; an event records it', async () => {
    const position = await lastPosition(server);
    await settings.setDefaultLoginSettings({ settings: POLICY });
    expect((await settings.getLoginSettings({})).settings).toMatchObject(POLICY);
    expect(await settings.getLoginSettings({ organizationId: acme.id })).toMatchObject({
      inherited: true,
      settings: POLICY,
    });
    const events = await eventsSince(server, position);
    expect(events.map((e) => e.eventType)).toEqual(['instance.login_policy.set']);
  });

  it('an organization override replaces the whole policy until it is reset', async () => {
    const own = { ...POLICY, forceMfa: false, secondFactors: [SecondFactorType.U2F], passwordCheckLifetimeSeconds: 0 };
    const position = await lastPosition(server);
    await settings.setOrganizationLoginSettings({ organizationId: acme.id, settings: own });
    expect(await settings.getLoginSettings({ organizationId: acme.id })).toMatchObject({
      inherited: false,
      settings: own,
    });
    // the instance and other organizations keep the default
    expect((await settings.getLoginSettings({ organizationId: other.id })).inherited).toBe(true);
    // a new default does not reach the organization with its own policy
    await settings.setDefaultLoginSettings({ settings: { ...POLICY, passwordCheckLifetimeSeconds: 7200 } });
    expect((await settings.getLoginSettings({ organizationId: acme.id })).settings?.passwordCheckLifetimeSeconds).toBe(
      0,
    );
    await settings.resetOrganizationLoginSettings({ organizationId: acme.id });
    expect(await settings.getLoginSettings({ organizationId: acme.id })).toMatchObject({
      inherited: true,
      settings: { passwordCheckLifetimeSeconds: 7200 },
    });
    const events = await eventsSince(server, position);
    expect(events.map((e) => e.eventType)).toEqual([
      'org.login_policy.factors.set',
      'instance.login_policy.set',
      'org.login_policy.factors.reset',
    ]);
    // resetting again: nothing to reset
    await expect(settings.resetOrganizationLoginSettings({ organizationId: acme.id })).rejects.toMatchObject({
      code: Code.FailedPrecondition,
    });
  });

  it('refuses invalid policies with INVALID_ARGUMENT naming the field', async () => {
    const cases: [Partial<typeof POLICY>, RegExp][] = [
      [{ passwordlessType: PasswordlessType.UNSPECIFIED }, /settings\.passwordless_type/],
      [{ secondFactors: [SecondFactorType.UNSPECIFIED] }, /settings\.second_factors/],
      [{ secondFactors: [SecondFactorType.TOTP, SecondFactorType.TOTP] }, /settings\.second_factors.*repeat/],
      [{ multiFactors: [] }, /settings\.multi_factors/],
      [{ passwordCheckLifetimeSeconds: 400 * 24 * 3600 }, /settings\.password_check_lifetime_seconds/],
      [
        { allowUsernamePassword: false, passwordlessType: PasswordlessType.NOT_ALLOWED, multiFactors: [] },
        /settings\.passwordless_type/,
      ],
      [
        { passwordlessType: PasswordlessType.NOT_ALLOWED, secondFactors: [], multiFactors: [] },
        /settings\.second_factors/,
      ],
    ];
    for (const [change, message] of cases) {
      const err = await settings.setDefaultLoginSettings({ settings: { ...POLICY, ...change } }).catch((e) => e);
      expect(err, message.source).toMatchObject({ code: Code.InvalidArgument });
      expect(err.message).toMatch(message);
    }
    await expect(settings.setDefaultLoginSettings({})).rejects.toMatchObject({ code: Code.InvalidArgument });
    await expect(
      settings.setOrganizationLoginSettings({
        organizationId: acme.id,
        settings: { ...POLICY, secondFactors: [9 as SecondFactorType] },
      }),
    ).rejects.toMatchObject({ code: Code.InvalidArgument });
  });

  it('an organization owner sets their own policy but not another organization’s nor the default', async () => {
    const owner = await addMachineWithToken(server, acme.id, { roles: ['ORG_OWNER'] });
    const asOwner = server.client(SettingsService, { token: owner.token });
    await asOwner.setOrganizationLoginSettings({ organizationId: acme.id, settings: POLICY });
    expect((await asOwner.getLoginSettings({ organizationId: acme.id })).inherited).toBe(false);
    await asOwner.resetOrganizationLoginSettings({ organizationId: acme.id });
    // another organization: not even visible
    for (const call of [
      () => asOwner.getLoginSettings({ organizationId: other.id }),
      () => asOwner.setOrganizationLoginSettings({ organizationId: other.id, settings: POLICY }),
      () => asOwner.resetOrganizationLoginSettings({ organizationId: other.id }),
    ])
      await expect(call()).rejects.toMatchObject({ code: Code.NotFound });
    // the instance's default
    await expect(asOwner.setDefaultLoginSettings({ settings: POLICY })).rejects.toMatchObject({
      code: Code.PermissionDenied,
    });
    await expect(asOwner.getLoginSettings({})).rejects.toMatchObject({ code: Code.PermissionDenied });
  });

  it('a plain user and an organization user manager change nothing; no token is unauthenticated', async () => {
    const plain = await addMachineWithToken(server, await defaultOrgId(server));
    const manager = await addMachineWithToken(server, acme.id, { roles: ['ORG_USER_MANAGER'] });
    for (const token of [plain.token, manager.token]) {
      const as = server.client(SettingsService, { token });
      await expect(as.setDefaultLoginSettings({ settings: POLICY })).rejects.toMatchObject({
        code: Code.PermissionDenied,
      });
      const err = await as.setOrganizationLoginSettings({ organizationId: acme.id, settings: POLICY }).catch((e) => e);
      expect([Code.PermissionDenied, Code.NotFound]).toContain(err.code);
    }
    const anonymous = server.client(SettingsService, { token: null });
    for (const call of [
      () => anonymous.getLoginSettings({}),
      () => anonymous.setDefaultLoginSettings({ settings: POLICY }),
      () => anonymous.setOrganizationLoginSettings({ organizationId: acme.id, settings: POLICY }),
      () => anonymous.resetOrganizationLoginSettings({ organizationId: acme.id }),
    ])
      await expect(call()).rejects.toMatchObject({ code: Code.Unauthenticated });
    expect((await settings.getLoginSettings({ organizationId: acme.id })).inherited).toBe(true);
  });
});
