import type { SecondFactorChoice } from '../../domain/session/policy-gap';
import type { Messages } from '../i18n';
import { gapOf } from '../mfa-gap';
import { MfaPage } from '../pages/mfa';
import { CHECK_PATHS } from './mfa-paths';
import { withSignedInUser } from './signed-in';
import type { LoginStep } from './types';

const LABELS: Record<SecondFactorChoice, keyof Messages> = {
  totp: 'mfaTotp',
  webAuthN: 'mfaWebAuthN',
  otpEmail: 'mfaOtpEmail',
  otpSms: 'mfaOtpSms',
  recoveryCode: 'mfaRecoveryCode',
};

/**
 * After the first factor, when the login policy (or the user's own factors) asks for a second one:
 * the user's ready factors that the policy allows, each a link to its page; with one, straight there.
 */
export const mfa: LoginStep = {
  path: 'mfa',
  page: (turn) =>
    withSignedInUser(turn, 'login', async (signedIn) => {
      const gap = await gapOf(turn, signedIn);
      if (gap.missing !== 'second-factor') return turn.proceed(signedIn, mfa);
      if (gap.factors.length === 1) return turn.see(turn.url(CHECK_PATHS[gap.factors[0]]));
      const choices = gap.factors.map((f) => ({ href: turn.url(CHECK_PATHS[f]), label: turn.t[LABELS[f]] }));
      return turn.render((base) => <MfaPage {...base} choices={choices} />);
    }),
  // The page has links only: a form post shows it again.
  post: async (turn) => turn.see(turn.url('mfa')),
};
