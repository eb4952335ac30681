import { type Declarations, type Empty, declareFor } from '../declare';

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
  'device_authorization.added': { clientId: string; scope: string[] };
  'device_authorization.approved': { userId: string; sessionId: string; grantId: string };
  'device_authorization.denied': Empty;
  'device_authorization.used': Empty;
}

const oidcSession = declareFor('oidc_session');
const accessToken = declareFor('access_token');
const refreshToken = declareFor('refresh_token');
// The signing-key cache is reloaded by the key commands themselves (src/domain/oidc/web-keys.ts).
const webKey = declareFor('web_key');
// Device authorizations (RFC 8628): v1 published no names for them.
const device = declareFor('device_authorization');

export const oidcEvents: Declarations<OidcEvents> = {
  'oidc_session.added': oidcSession(['OIDC session created', 'OIDC-Sitzung erstellt']),
  'oidc_session.revoked': oidcSession(['OIDC session revoked', 'OIDC-Sitzung widerrufen'], 'token-lookups'),
  'oidc_session.access_token.added': accessToken(['Access token issued', 'Zugriffstoken ausgestellt']),
  'oidc_session.access_token.revoked': accessToken(
    ['Access token revoked', 'Zugriffstoken widerrufen'],
    'token-lookups',
  ),
  'oidc_session.refresh_token.added': refreshToken(['Refresh token issued', 'Aktualisierungstoken ausgestellt']),
  'oidc_session.refresh_token.revoked': refreshToken(
    ['Refresh token revoked', 'Aktualisierungstoken widerrufen'],
    'token-lookups',
  ),
  'web_key.added': webKey(['Signing key added', 'Signaturschlüssel hinzugefügt'], 'token-lookups'),
  'web_key.activated': webKey(['Signing key activated', 'Signaturschlüssel aktiviert'], 'token-lookups'),
  'web_key.deactivated': webKey(['Signing key deactivated', 'Signaturschlüssel deaktiviert'], 'token-lookups'),
  'web_key.removed': webKey(['Signing key removed', 'Signaturschlüssel entfernt'], 'token-lookups'),
  'device_authorization.added': device(null),
  'device_authorization.approved': device(null),
  'device_authorization.denied': device(null),
  'device_authorization.used': device(null),
};
