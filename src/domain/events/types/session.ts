import type { Declarations, Empty } from '../declare';

export interface SessionEvents {
  'session.added': { userId?: string; checks: string[] };
  'session.password.checked': { userId: string };
  'session.terminated': Empty;
  'auth_request.added': { clientId: string; scope: string[]; responseType: string; prompt: unknown };
  'auth_request.login_name.set': Empty;
  'auth_request.session.linked': { sessionId: string };
  'auth_request.failed': { error: string };
}

// Signing in creates state but changes nothing a token issued before it answers with.
export const sessionEvents: Declarations<SessionEvents> = {
  'session.added': { aggregate: 'session', names: ['Session created', 'Sitzung erstellt'], invalidates: [] },
  'session.password.checked': {
    aggregate: 'session',
    names: ['Password checked in session', 'Passwort in Sitzung geprüft'],
    invalidates: [],
  },
  'session.terminated': {
    aggregate: 'session',
    names: ['Session ended', 'Sitzung beendet'],
    invalidates: ['token-lookups'],
  },
  'auth_request.added': {
    aggregate: 'auth_request',
    names: ['Authorization request received', 'Autorisierungsanfrage erhalten'],
    invalidates: [],
  },
  'auth_request.login_name.set': { aggregate: 'auth_request', names: null, invalidates: [] },
  'auth_request.session.linked': { aggregate: 'auth_request', names: null, invalidates: [] },
  'auth_request.failed': { aggregate: 'auth_request', names: null, invalidates: [] },
};
