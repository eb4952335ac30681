import type { Declarations, Empty } from '../declare';

export interface OidcEvents {
  'oidc_session.added': {
    userId: string;
    sessionId?: string | null;
    clientId: string;
    scope: string[];
    audience: string[];
    actorUserId?: string;
  };
  'oidc_session.revoked': { reason: string };
  'oidc_session.access_token.added': {
    grantId?: string | null;
    clientId: string;
    userId: string;
    scope: string[];
    actorUserId?: string;
  };
  'oidc_session.access_token.revoked': { by: string; clientId?: string; userId?: string };
  'oidc_session.refresh_token.added': { grantId: string; clientId: string };
  'oidc_session.refresh_token.revoked': Empty;
  'web_key.added': { algorithm: string };
  'web_key.activated': Empty;
  'web_key.deactivated': Empty;
  'web_key.removed': Empty;
}

export const oidcEvents: Declarations<OidcEvents> = {
  'oidc_session.added': {
    aggregate: 'oidc_session',
    names: ['OIDC session created', 'OIDC-Sitzung erstellt'],
    invalidates: [],
  },
  'oidc_session.revoked': {
    aggregate: 'oidc_session',
    names: ['OIDC session revoked', 'OIDC-Sitzung widerrufen'],
    invalidates: ['token-lookups'],
  },
  'oidc_session.access_token.added': {
    aggregate: 'access_token',
    names: ['Access token issued', 'Zugriffstoken ausgestellt'],
    invalidates: [],
  },
  'oidc_session.access_token.revoked': {
    aggregate: 'access_token',
    names: ['Access token revoked', 'Zugriffstoken widerrufen'],
    invalidates: ['token-lookups'],
  },
  'oidc_session.refresh_token.added': {
    aggregate: 'refresh_token',
    names: ['Refresh token issued', 'Aktualisierungstoken ausgestellt'],
    invalidates: [],
  },
  'oidc_session.refresh_token.revoked': {
    aggregate: 'refresh_token',
    names: ['Refresh token revoked', 'Aktualisierungstoken widerrufen'],
    invalidates: ['token-lookups'],
  },
  // The signing-key cache is reloaded by the key commands themselves (src/domain/oidc/web-keys.ts).
  'web_key.added': {
    aggregate: 'web_key',
    names: ['Signing key added', 'Signaturschlüssel hinzugefügt'],
    invalidates: ['token-lookups'],
  },
  'web_key.activated': {
    aggregate: 'web_key',
    names: ['Signing key activated', 'Signaturschlüssel aktiviert'],
    invalidates: ['token-lookups'],
  },
  'web_key.deactivated': {
    aggregate: 'web_key',
    names: ['Signing key deactivated', 'Signaturschlüssel deaktiviert'],
    invalidates: ['token-lookups'],
  },
  'web_key.removed': {
    aggregate: 'web_key',
    names: ['Signing key removed', 'Signaturschlüssel entfernt'],
    invalidates: ['token-lookups'],
  },
};
