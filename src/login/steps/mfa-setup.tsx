import { skipMfaInit } from '../../domain/policy/commands';
import type { SetupChoice } from '../../domain/session/policy-gap';
import type { Messages } from '../i18n';
import { gapOf } from '../mfa-gap';
import { MfaSetupPage } from '../pages/mfa';
import { SETUP_PATHS } from './mfa-paths';
import { withSignedInUser } from './signed-in';
import type { LoginStep } from './types';

const LABELS: Record<SetupChoice, keyof Messages> = {
  totp: 'mfaSetupTotp',
  passkey: 'mfaSetupPasskey',
  otpEmail: 'mfaSetupOtpEmail',
  otpSms: 'mfaSetupOtpSms',
};

/**
 * The login policy forces MFA (or the request's acr_values ask for it) and the user has no second
 * factor: the factors the policy allows, each a link to its set-up page, and "skip for now" while
 * the policy lets users postpone the set-up (`mfa_init_skip_lifetime_seconds`).
 */
export const mfaSetup: LoginStep = {
  path: 'mfa-setup',
  page: (turn) =>
    withSignedInUser(turn, 'login', async (signedIn) => {
      const gap = await gapOf(turn, signedIn);
      if (gap.missing !== 'factor-setup') return turn.proceed(signedIn, mfaSetup);
      const choices = gap.factors.map((f) => ({ href: turn.url(SETUP_PATHS[f]), label: turn.t[LABELS[f]] }));
      return turn.render((base) => <MfaSetupPage {...base} choices={choices} skippable={gap.skippable} />);
    }),
  post: async (turn) => turn.see(turn.url('mfa-setup')),
  actions: {
    skip: (turn) =>
      withSignedInUser(turn, 'login', async (signedIn) => {
        const gap = await gapOf(turn, signedIn);
        if (gap.missing === 'factor-setup' && gap.skippable) {
          const { user } = signedIn;
          await skipMfaInit(turn.ctx(user.id, user.orgId), user.id);
        }
        return turn.proceed(signedIn, mfaSetup);
      }),
  },
};
