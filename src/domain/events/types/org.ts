import type { ChangedFields, Declarations, Empty } from '../declare';

export interface OrgEvents {
  'org.added': { name: string };
  'org.changed': { name: string };
  'org.deactivated': Empty;
  'org.reactivated': Empty;
  'org.removed': Empty;
  'org.domain.added': { domain: string; generated?: boolean };
  'org.domain.verified': { domain: string };
  'org.domain.primary.set': { domain: string };
  'org.domain.removed': { domain: string };
  'org.metadata.set': { key: string; value: string };
  'org.metadata.removed': { key: string };
  'org.login_policy.changed': ChangedFields;
}

export const orgEvents: Declarations<OrgEvents> = {
  'org.added': {
    aggregate: 'org',
    names: ['Organization added', 'Organisation hinzugefügt'],
    invalidates: [],
  },
  'org.changed': {
    aggregate: 'org',
    names: ['Organization changed', 'Organisation geändert'],
    invalidates: ['token-lookups'],
  },
  // Sign-ins and cached principals of the organization's users depend on its state.
  'org.deactivated': {
    aggregate: 'org',
    names: ['Organization deactivated', 'Organisation deaktiviert'],
    invalidates: ['token-lookups', 'org-users'],
  },
  'org.reactivated': {
    aggregate: 'org',
    names: ['Organization reactivated', 'Organisation reaktiviert'],
    invalidates: ['token-lookups', 'org-users'],
  },
  'org.removed': {
    aggregate: 'org',
    names: ['Organization removed', 'Organisation entfernt'],
    invalidates: ['token-lookups'],
  },
  'org.domain.added': {
    aggregate: 'org',
    names: ['Organization domain added', 'Organisations-Domain hinzugefügt'],
    invalidates: ['token-lookups'],
  },
  'org.domain.verified': {
    aggregate: 'org',
    names: ['Organization domain verified', 'Organisations-Domain verifiziert'],
    invalidates: ['token-lookups'],
  },
  // The primary domain is part of every user's login name in the cached principals.
  'org.domain.primary.set': {
    aggregate: 'org',
    names: ['Primary domain set', 'Primäre Domain gesetzt'],
    invalidates: ['token-lookups', 'org-users'],
  },
  'org.domain.removed': {
    aggregate: 'org',
    names: ['Organization domain removed', 'Organisations-Domain entfernt'],
    invalidates: ['token-lookups'],
  },
  'org.metadata.set': {
    aggregate: 'org',
    names: ['Organization metadata set', 'Organisations-Metadaten gesetzt'],
    invalidates: ['token-lookups'],
  },
  'org.metadata.removed': {
    aggregate: 'org',
    names: ['Organization metadata removed', 'Organisations-Metadaten entfernt'],
    invalidates: ['token-lookups'],
  },
  'org.login_policy.changed': { aggregate: 'org', names: null, invalidates: ['token-lookups'] },
};
