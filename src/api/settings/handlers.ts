import type { ServiceImpl } from '@connectrpc/connect';
import {
  type LoginSettings,
  MultiFactorType,
  PasswordlessType,
  SecondFactorType,
} from '../../../gen/portcullis/settings/v2/login_settings_pb';
import type { SettingsService } from '../../../gen/portcullis/settings/v2/settings_service_pb';
import type { Deps } from '../../deps';
import { invalidArgument } from '../../domain/errors';
import { getPasswordComplexity } from '../../domain/instance/password-complexity';
import {
  getLoginSettings,
  resetOrganizationLoginSettings,
  setDefaultLoginSettings,
  setOrganizationLoginSettings,
} from '../../domain/policy/commands';
import type {
  LoginPolicy,
  MultiFactorType as MultiFactor,
  PasswordlessMode,
  SecondFactorType as SecondFactor,
} from '../../domain/policy/login-policy';
import { ctxOf } from '../context';
import { ts } from '../convert/time';

/** Enum values by name: the domain's names are the proto's without the type prefix. */
const named = <E extends Record<string, string | number>>(e: E, name: string) => e[name as keyof E] as E[keyof E];

function toPolicy(s: LoginSettings | undefined): LoginPolicy {
  if (!s) throw invalidArgument('Errors.LoginPolicy.Missing', 'settings is required');
  return {
    allowUsernamePassword: s.allowUsernamePassword,
    passwordless: PasswordlessType[s.passwordlessType] as PasswordlessMode,
    forceMfa: s.forceMfa,
    forceMfaLocalOnly: s.forceMfaLocalOnly,
    allowExternalIdp: s.allowExternalIdp,
    secondFactors: s.secondFactors.map((f) => SecondFactorType[f] as SecondFactor),
    multiFactors: s.multiFactors.map((f) => MultiFactorType[f] as MultiFactor),
    passwordCheckLifetimeSeconds: s.passwordCheckLifetimeSeconds,
    secondFactorCheckLifetimeSeconds: s.secondFactorCheckLifetimeSeconds,
    multiFactorCheckLifetimeSeconds: s.multiFactorCheckLifetimeSeconds,
    mfaInitSkipLifetimeSeconds: s.mfaInitSkipLifetimeSeconds,
  };
}

function fromPolicy(p: LoginPolicy) {
  return {
    allowUsernamePassword: p.allowUsernamePassword,
    passwordlessType: named(PasswordlessType, p.passwordless),
    forceMfa: p.forceMfa,
    forceMfaLocalOnly: p.forceMfaLocalOnly,
    allowExternalIdp: p.allowExternalIdp,
    secondFactors: p.secondFactors.map((f) => named(SecondFactorType, f)),
    multiFactors: p.multiFactors.map((f) => named(MultiFactorType, f)),
    passwordCheckLifetimeSeconds: p.passwordCheckLifetimeSeconds,
    secondFactorCheckLifetimeSeconds: p.secondFactorCheckLifetimeSeconds,
    multiFactorCheckLifetimeSeconds: p.multiFactorCheckLifetimeSeconds,
    mfaInitSkipLifetimeSeconds: p.mfaInitSkipLifetimeSeconds,
  };
}

export function settingsHandlers(deps: Deps): ServiceImpl<typeof SettingsService> {
  return {
    async getPasswordComplexitySettings(_req, hc) {
      return { settings: await getPasswordComplexity(ctxOf(deps, hc)) };
    },
    async getLoginSettings(req, hc) {
      const r = await getLoginSettings(ctxOf(deps, hc), { orgId: req.organizationId || undefined });
      return { settings: fromPolicy(r.policy), inherited: r.inherited };
    },
    async setDefaultLoginSettings(req, hc) {
      const r = await setDefaultLoginSettings(ctxOf(deps, hc), toPolicy(req.settings));
      return { changeDate: ts(r.changedAt) };
    },
    async setOrganizationLoginSettings(req, hc) {
      const r = await setOrganizationLoginSettings(ctxOf(deps, hc), {
        orgId: req.organizationId,
        policy: toPolicy(req.settings),
      });
      return { changeDate: ts(r.changedAt) };
    },
    async resetOrganizationLoginSettings(req, hc) {
      const r = await resetOrganizationLoginSettings(ctxOf(deps, hc), { orgId: req.organizationId });
      return { changeDate: ts(r.changedAt) };
    },
  };
}
