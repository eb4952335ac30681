import { type Declarations, type Empty, declareFor } from '../declare';

/**
 * The user's authenticator app (TOTP), one-time codes by email and SMS, and recovery codes
 * (src/domain/user/factors/). No payload carries a secret, a code or a hash of one.
 */
export interface SecondFactorEvents {
  'user.human.mfa.otp.added': Empty;
  'user.human.mfa.otp.verified': Empty;
  'user.human.mfa.otp.removed': Empty;
  'user.human.otp.email.added': Empty;
  'user.human.otp.email.removed': Empty;
  'user.human.otp.sms.added': Empty;
  'user.human.otp.sms.removed': Empty;
  'user.human.recovery_codes.generated': { count: number };
  'user.human.recovery_codes.removed': Empty;
  /** a one-time code was sent (or returned) for a session's email or SMS challenge */
  'user.human.otp.code.added': { channel: 'email' | 'sms'; sessionId: string; codeReturned: boolean };
  'user.human.mfa.check.succeeded': { factor: string };
  'user.human.mfa.check.failed': { factor: string; attempts: number };
}

const user = declareFor('user');

export const secondFactorEvents: Declarations<SecondFactorEvents> = {
  'user.human.mfa.otp.added': user([
    'Authenticator app registration started',
    'Authenticator-App-Registrierung begonnen',
  ]),
  'user.human.mfa.otp.verified': user(['Authenticator app verified', 'Authenticator-App bestätigt']),
  'user.human.mfa.otp.removed': user(['Authenticator app removed', 'Authenticator-App entfernt']),
  'user.human.otp.email.added': user(['Email one-time codes enabled', 'Einmalcodes per E-Mail aktiviert']),
  'user.human.otp.email.removed': user(['Email one-time codes disabled', 'Einmalcodes per E-Mail deaktiviert']),
  'user.human.otp.sms.added': user(['SMS one-time codes enabled', 'Einmalcodes per SMS aktiviert']),
  'user.human.otp.sms.removed': user(['SMS one-time codes disabled', 'Einmalcodes per SMS deaktiviert']),
  'user.human.recovery_codes.generated': user(['Recovery codes generated', 'Wiederherstellungscodes erzeugt']),
  'user.human.recovery_codes.removed': user(['Recovery codes removed', 'Wiederherstellungscodes entfernt']),
  'user.human.otp.code.added': user(['One-time code sent', 'Einmalcode versandt']),
  'user.human.mfa.check.succeeded': user(['Second factor check succeeded', 'Prüfung des zweiten Faktors erfolgreich']),
  'user.human.mfa.check.failed': user(['Second factor check failed', 'Prüfung des zweiten Faktors fehlgeschlagen']),
};
