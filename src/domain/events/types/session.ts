import { type Declarations, type Empty, declareFor } from '../declare';

export interface SessionEvents {
  'session.added': { userId?: string; checks: string[] };
  'session.password.checked': { userId: string };
  'session.terminated': Empty;
  'auth_request.added': { clientId: string; scope: string[]; responseType: string; prompt: unknown };
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
  'session.terminated': session(['Session ended', 'Sitzung beendet'], 'token-lookups'),
  'auth_request.added': authRequest(['Authorization request received', 'Autorisierungsanfrage erhalten']),
  'auth_request.login_name.set': authRequest(null),
  'auth_request.session.linked': authRequest(null),
  'auth_request.failed': authRequest(null),
};
