/**
 * Localized names of event and aggregate types (English and German), for the v1 event search.
 * A type missing here is shown by its technical name.
 */
export type Lang = 'en' | 'de';

export const EVENT_TYPE_NAMES: Record<string, [en: string, de: string]> = {
  'auth_request.added': ['Authorization request received', 'Autorisierungsanfrage erhalten'],
  'instance.settings.changed': ['Instance settings changed', 'Instanz-Einstellungen geändert'],
  'oidc_session.access_token.added': ['Access token issued', 'Zugriffstoken ausgestellt'],
  'oidc_session.refresh_token.added': ['Refresh token issued', 'Aktualisierungstoken ausgestellt'],
  'oidc_session.refresh_token.revoked': ['Refresh token revoked', 'Aktualisierungstoken widerrufen'],
  'oidc_session.revoked': ['OIDC session revoked', 'OIDC-Sitzung widerrufen'],
  'project.grant.deactivated': ['Project grant deactivated', 'Projektfreigabe deaktiviert'],
  'project.grant.reactivated': ['Project grant reactivated', 'Projektfreigabe reaktiviert'],
  'session.password.checked': ['Password checked in session', 'Passwort in Sitzung geprüft'],
  'user.human.password.check.failed': ['Password check failed', 'Passwortprüfung fehlgeschlagen'],
  'user.human.password.check.succeeded': ['Password check succeeded', 'Passwortprüfung erfolgreich'],
  'user.human.password.hash.updated': ['Password hash upgraded to argon2id', 'Passwort-Hash auf argon2id aktualisiert'],
  'user.initialized': ['User initialized', 'Benutzer initialisiert'],
  'web_key.deactivated': ['Signing key deactivated', 'Signaturschlüssel deaktiviert'],
  'instance.added': ['Instance added', 'Instanz hinzugefügt'],
  'instance.changed': ['Instance changed', 'Instanz geändert'],
  'instance.domain.added': ['Instance domain added', 'Instanz-Domain hinzugefügt'],
  'instance.domain.removed': ['Instance domain removed', 'Instanz-Domain entfernt'],
  'org.added': ['Organization added', 'Organisation hinzugefügt'],
  'org.changed': ['Organization changed', 'Organisation geändert'],
  'org.deactivated': ['Organization deactivated', 'Organisation deaktiviert'],
  'org.reactivated': ['Organization reactivated', 'Organisation reaktiviert'],
  'org.removed': ['Organization removed', 'Organisation entfernt'],
  'org.domain.added': ['Organization domain added', 'Organisations-Domain hinzugefügt'],
  'org.domain.verified': ['Organization domain verified', 'Organisations-Domain verifiziert'],
  'org.domain.primary.set': ['Primary domain set', 'Primäre Domain gesetzt'],
  'org.domain.removed': ['Organization domain removed', 'Organisations-Domain entfernt'],
  'org.metadata.set': ['Organization metadata set', 'Organisations-Metadaten gesetzt'],
  'org.metadata.removed': ['Organization metadata removed', 'Organisations-Metadaten entfernt'],
  'user.human.added': ['Person added', 'Person hinzugefügt'],
  'user.machine.added': ['Service user added', 'Service-Benutzer hinzugefügt'],
  'user.changed': ['User changed', 'Benutzer geändert'],
  'user.human.changed': ['Person changed', 'Person geändert'],
  'user.machine.changed': ['Service user changed', 'Service-Benutzer geändert'],
  'user.human.password.changed': ['Password changed', 'Passwort geändert'],
  'user.human.password.code.added': ['Password reset code created', 'Passwort-Zurücksetzungscode erstellt'],
  'user.human.email.changed': ['Email address changed', 'E-Mail-Adresse geändert'],
  'user.human.email.code.added': ['Email verification code created', 'E-Mail-Verifizierungscode erstellt'],
  'user.human.email.verified': ['Email address verified', 'E-Mail-Adresse verifiziert'],
  'user.human.phone.changed': ['Phone number changed', 'Telefonnummer geändert'],
  'user.human.phone.verified': ['Phone number verified', 'Telefonnummer verifiziert'],
  'user.human.invite.code.added': ['Invitation code created', 'Einladungscode erstellt'],
  'user.human.invite.code.verified': ['Invitation accepted', 'Einladung angenommen'],
  'user.human.otp.added': ['Authenticator app (OTP) added', 'Authenticator-App (OTP) hinzugefügt'],
  'user.locked': ['User locked', 'Benutzer gesperrt'],
  'user.unlocked': ['User unlocked', 'Benutzer entsperrt'],
  'user.deactivated': ['User deactivated', 'Benutzer deaktiviert'],
  'user.reactivated': ['User reactivated', 'Benutzer reaktiviert'],
  'user.removed': ['User removed', 'Benutzer entfernt'],
  'user.metadata.set': ['User metadata set', 'Benutzer-Metadaten gesetzt'],
  'user.metadata.removed': ['User metadata removed', 'Benutzer-Metadaten entfernt'],
  'user.machine.key.added': ['Service user key added', 'Schlüssel des Service-Benutzers hinzugefügt'],
  'user.machine.key.removed': ['Service user key removed', 'Schlüssel des Service-Benutzers entfernt'],
  'user.machine.secret.set': ['Service user secret set', 'Secret des Service-Benutzers gesetzt'],
  'user.machine.secret.removed': ['Service user secret removed', 'Secret des Service-Benutzers entfernt'],
  'user.personal.access.token.added': ['Personal access token added', 'Persönliches Zugriffstoken hinzugefügt'],
  'user.personal.access.token.removed': ['Personal access token removed', 'Persönliches Zugriffstoken entfernt'],
  'user.impersonated': ['User impersonated', 'Benutzer imitiert'],
  'project.added': ['Project added', 'Projekt hinzugefügt'],
  'project.changed': ['Project changed', 'Projekt geändert'],
  'project.deactivated': ['Project deactivated', 'Projekt deaktiviert'],
  'project.reactivated': ['Project reactivated', 'Projekt reaktiviert'],
  'project.removed': ['Project removed', 'Projekt entfernt'],
  'project.role.added': ['Project role added', 'Projektrolle hinzugefügt'],
  'project.role.changed': ['Project role changed', 'Projektrolle geändert'],
  'project.role.removed': ['Project role removed', 'Projektrolle entfernt'],
  'project.grant.added': ['Project granted', 'Projekt berechtigt'],
  'project.grant.changed': ['Project grant changed', 'Projektberechtigung geändert'],
  'project.grant.removed': ['Project grant removed', 'Projektberechtigung entfernt'],
  'project.application.added': ['Application added', 'Applikation hinzugefügt'],
  'project.application.changed': ['Application changed', 'Applikation geändert'],
  'project.application.removed': ['Application removed', 'Applikation entfernt'],
  'project.application.config.oidc.added': ['OIDC configuration added', 'OIDC-Konfiguration hinzugefügt'],
  'project.application.config.saml.added': ['SAML configuration added', 'SAML-Konfiguration hinzugefügt'],
  'project.application.config.api.added': ['API configuration added', 'API-Konfiguration hinzugefügt'],
  'authorization.added': ['Authorization added', 'Berechtigung hinzugefügt'],
  'authorization.changed': ['Authorization changed', 'Berechtigung geändert'],
  'authorization.removed': ['Authorization removed', 'Berechtigung entfernt'],
  'administrator.added': ['Administrator added', 'Administrator hinzugefügt'],
  'administrator.changed': ['Administrator changed', 'Administrator geändert'],
  'administrator.removed': ['Administrator removed', 'Administrator entfernt'],
  'session.added': ['Session created', 'Sitzung erstellt'],
  'session.terminated': ['Session ended', 'Sitzung beendet'],
  'oidc_session.added': ['OIDC session created', 'OIDC-Sitzung erstellt'],
  'oidc_session.access_token.revoked': ['Access token revoked', 'Zugriffstoken widerrufen'],
  'web_key.added': ['Signing key added', 'Signaturschlüssel hinzugefügt'],
  'web_key.activated': ['Signing key activated', 'Signaturschlüssel aktiviert'],
  'web_key.removed': ['Signing key removed', 'Signaturschlüssel entfernt'],
};

export const AGGREGATE_TYPE_NAMES: Record<string, [en: string, de: string]> = {
  instance: ['Instance', 'Instanz'],
  org: ['Organization', 'Organisation'],
  user: ['User', 'Benutzer'],
  project: ['Project', 'Projekt'],
  authorization: ['Authorization', 'Berechtigung'],
  session: ['Session', 'Sitzung'],
  oidc_session: ['OIDC session', 'OIDC-Sitzung'],
  web_key: ['Signing key', 'Signaturschlüssel'],
};

export function localizedEventType(type: string, lang: Lang) {
  const names = EVENT_TYPE_NAMES[type];
  return {
    type,
    localized: { key: `EventTypes.${type}`, localizedMessage: names ? names[lang === 'de' ? 1 : 0] : type },
  };
}

export function localizedAggregateType(type: string, lang: Lang) {
  const names = AGGREGATE_TYPE_NAMES[type];
  return {
    type,
    localized: { key: `AggregateTypes.${type}`, localizedMessage: names ? names[lang === 'de' ? 1 : 0] : type },
  };
}

/** The caller's preferred language among the ones we have, from Accept-Language; English by default. */
export function languageOf(acceptLanguage: string | undefined): Lang {
  if (!acceptLanguage) return 'en';
  let best: { lang: Lang; q: number } | undefined;
  for (const part of acceptLanguage.split(',')) {
    const [tag, ...params] = part.trim().split(';');
    const base = tag.trim().toLowerCase().split('-')[0];
    if (base !== 'en' && base !== 'de') continue;
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const q = qParam ? Number(qParam.slice(2)) : 1;
    if (Number.isFinite(q) && q > 0 && (!best || q > best.q)) best = { lang: base, q };
  }
  return best?.lang ?? 'en';
}
