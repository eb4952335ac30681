import { type Declarations, type Empty, declareFor } from '../declare';

/** A factor check in a session: whose, and for WebAuthn what the authenticator proved. */
interface FactorChecked {
  userId: string;
  userVerified?: boolean;
  synced?: boolean;
  idpId?: string;
}

export interface SessionEvents {
  'session.added': { userId?: string; checks: string[] };
  'session.password.checked': FactorChecked;
  'session.totp.checked': FactorChecked;
  'session.otp_email.checked': FactorChecked;
  'session.otp_sms.checked': FactorChecked;
  'session.webauthn.checked': FactorChecked;
  'session.recovery_code.checked': FactorChecked;
  'session.idp_intent.checked': FactorChecked;
  'session.terminated': Empty;
  /** a back-channel logout token for this client is in the outbox (src/domain/oidc/logout/) */
  'session.logout_token.queued': { clientId: string; deliveryId: string };
  'session.logout_token.sent': { clientId: string; deliveryId: string; attempts: number };
  'session.logout_token.failed': { clientId: string; deliveryId: string; attempts: number; error: string };
  'auth_request.added': {
    clientId: string;
    scope: string[];
    responseType: string;
    prompt: unknown;
    /** RFC 8707 resource URIs, when asked for */
    resource?: string[];
  };
  'auth_request.login_name.set': Empty;
  'auth_request.session.linked': { sessionId: string };
  'auth_request.failed': { error: string };
}

const session = declareFor('session');
const authRequest = declareFor('auth_request');

// Signing in creates state but changes nothing a token issued before it answers with.
export const sessionEvents: Declarations<SessionEvents> = {
  'session.added': session(['Session created', 'Sitzung erstellt']),
  'session.password.checked': session(['Password checked in session', 'Passwort in Sitzung geprüft']),
  'session.totp.checked': session(['TOTP checked in session', 'TOTP in Sitzung geprüft']),
  'session.otp_email.checked': session(['Email code checked in session', 'E-Mail-Code in Sitzung geprüft']),
  'session.otp_sms.checked': session(['SMS code checked in session', 'SMS-Code in Sitzung geprüft']),
  'session.idp_intent.checked': session([
    'Sign-in at identity provider checked in session',
    'Anmeldung beim Identitätsanbieter in Sitzung geprüft',
  ]),
  'session.webauthn.checked': session([
    'Passkey or security key checked in session',
    'Passkey oder Sicherheitsschlüssel in Sitzung geprüft',
  ]),
  'session.recovery_code.checked': session([
    'Recovery code checked in session',
    'Wiederherstellungscode in Sitzung geprüft',
  ]),
  'session.terminated': session(['Session ended', 'Sitzung beendet'], 'token-lookups'),
  'session.logout_token.queued': session(['Logout notification queued', 'Abmeldebenachrichtigung vorgemerkt']),
  'session.logout_token.sent': session(['Logout notification delivered', 'Abmeldebenachrichtigung zugestellt']),
  'session.logout_token.failed': session([
    'Logout notification could not be delivered',
    'Abmeldebenachrichtigung konnte nicht zugestellt werden',
  ]),
  'auth_request.added': authRequest(['Authorization request received', 'Autorisierungsanfrage erhalten']),
  'auth_request.login_name.set': authRequest(null),
  'auth_request.session.linked': authRequest(null),
  'auth_request.failed': authRequest(null),
};
