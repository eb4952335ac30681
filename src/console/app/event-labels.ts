import type { LocalizedNames } from '../../domain/events/declare';
import { EVENT_TYPES, type EventType, eventTypes } from '../../domain/events/registry';

/**
 * The console's name for every event type, in English and German. Most come from the event registry
 * (src/domain/events/types/), where they are the names the v1 event search publishes. The registry
 * leaves some types without a name, and gives the instance's and an organization's identity-provider
 * events the same one, because v1 must keep showing what it always showed; the console, free of that,
 * names those here.
 */
const CONSOLE_NAMES: Partial<Record<EventType, LocalizedNames>> = {
  'instance.idp.added': ['Instance identity provider added', 'Identitätsanbieter der Instanz hinzugefügt'],
  'instance.idp.changed': ['Instance identity provider changed', 'Identitätsanbieter der Instanz geändert'],
  'instance.idp.removed': ['Instance identity provider removed', 'Identitätsanbieter der Instanz entfernt'],
  'org.idp.added': ['Organization identity provider added', 'Identitätsanbieter der Organisation hinzugefügt'],
  'org.idp.changed': ['Organization identity provider changed', 'Identitätsanbieter der Organisation geändert'],
  'org.idp.removed': ['Organization identity provider removed', 'Identitätsanbieter der Organisation entfernt'],
  'org.login_policy.changed': ['Organization login policy changed', 'Anmelderichtlinie der Organisation geändert'],
  'user.username.changed': ['Username changed', 'Benutzername geändert'],
  'user.human.phone.code.added': ['Phone verification code sent', 'Bestätigungscode für das Telefon gesendet'],
  'project.application.deactivated': ['Application deactivated', 'Applikation deaktiviert'],
  'project.application.reactivated': ['Application reactivated', 'Applikation reaktiviert'],
  'project.application.config.oidc.changed': ['OIDC configuration changed', 'OIDC-Konfiguration geändert'],
  'project.application.config.saml.changed': ['SAML configuration changed', 'SAML-Konfiguration geändert'],
  'project.application.config.api.changed': ['API configuration changed', 'API-Konfiguration geändert'],
  'project.application.secret.changed': ['Client secret changed', 'Client-Secret geändert'],
  'project.application.key.added': ['Application key added', 'Applikationsschlüssel hinzugefügt'],
  'project.application.key.removed': ['Application key removed', 'Applikationsschlüssel entfernt'],
  'auth_request.login_name.set': ['Login name entered at sign-in', 'Loginname bei der Anmeldung eingegeben'],
  'auth_request.session.linked': ['Sign-in linked to a session', 'Anmeldung mit einer Sitzung verknüpft'],
  'auth_request.failed': ['Sign-in request failed', 'Anmeldeanfrage fehlgeschlagen'],
  'auth_request.pushed.used': ['Pushed authorization request used', 'Vorab gesendete Autorisierungsanfrage verwendet'],
  'device_authorization.added': ['Device sign-in started', 'Geräteanmeldung begonnen'],
  'device_authorization.approved': ['Device sign-in approved', 'Geräteanmeldung bestätigt'],
  'device_authorization.denied': ['Device sign-in denied', 'Geräteanmeldung abgelehnt'],
  'device_authorization.used': ['Device sign-in completed', 'Geräteanmeldung abgeschlossen'],
  'idp_intent.started': ['Sign-in at identity provider started', 'Anmeldung beim Identitätsanbieter begonnen'],
  'idp_intent.consumed': ['Sign-in at identity provider used', 'Anmeldung beim Identitätsanbieter verwendet'],
};

/** Both names of an event type; undefined for a type the registry does not know. */
export function eventNames(type: string): LocalizedNames | undefined {
  return CONSOLE_NAMES[type as EventType] ?? EVENT_TYPES[type as EventType]?.names ?? undefined;
}

/** The event type's name in the page's language; an unknown type (from a newer server) by its technical name. */
export function eventLabel(type: string, lang: string): string {
  const names = eventNames(type);
  return names ? names[lang.startsWith('de') ? 1 : 0] : type;
}

/** Every event type with its name, sorted by that name: the choices of the event filter. */
export function labelledEventTypes(lang: string): { type: string; label: string }[] {
  return eventTypes
    .map((type) => ({ type, label: eventLabel(type, lang) }))
    .sort((a, b) => a.label.localeCompare(b.label, lang));
}
