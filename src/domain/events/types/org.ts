import type { LoginPolicy } from '../../policy/login-policy';
import { type ChangedFields, type Declarations, type Empty, declareFor } from '../declare';

export interface OrgEvents {
  'org.added': { name: string };
  'org.changed': { name: string };
  'org.deactivated': Empty;
  'org.reactivated': Empty;
  'org.removed': Empty;
  'org.domain.added': { domain: string; generated?: boolean };
  'org.domain.validation.added': { domain: string; validationType: 'dns' };
  'org.domain.verified': { domain: string };
  'org.domain.primary.set': { domain: string };
  /** `verified_elsewhere`: an unverified copy removed because another organization verified the domain */
  'org.domain.removed': { domain: string; reason?: 'verified_elsewhere' };
  'org.metadata.set': { key: string; value: string };
  'org.metadata.removed': { key: string };
  'org.login_policy.changed': ChangedFields;
  /** the organization's own login policy (factors, MFA, check lifetimes), whole */
  'org.login_policy.factors.set': LoginPolicy;
  /** the organization inherits the instance's login policy again */
  'org.login_policy.factors.reset': Empty;
}

const org = declareFor('org');

export const orgEvents: Declarations<OrgEvents> = {
  'org.added': org(['Organization added', 'Organisation hinzugefügt']),
  'org.changed': org(['Organization changed', 'Organisation geändert'], 'token-lookups'),
  // Sign-ins and the cached principals of the organization's users depend on its state.
  'org.deactivated': org(['Organization deactivated', 'Organisation deaktiviert'], 'token-lookups', 'org-users'),
  'org.reactivated': org(['Organization reactivated', 'Organisation reaktiviert'], 'token-lookups', 'org-users'),
  'org.removed': org(['Organization removed', 'Organisation entfernt'], 'token-lookups'),
  'org.domain.added': org(['Organization domain added', 'Organisations-Domain hinzugefügt'], 'token-lookups'),
  'org.domain.validation.added': org(['Domain validation generated', 'Domain-Prüfung erzeugt']),
  'org.domain.verified': org(['Organization domain verified', 'Organisations-Domain verifiziert'], 'token-lookups'),
  // The primary domain is part of every user's login name in the cached principals.
  'org.domain.primary.set': org(['Primary domain set', 'Primäre Domain gesetzt'], 'token-lookups', 'org-users'),
  'org.domain.removed': org(['Organization domain removed', 'Organisations-Domain entfernt'], 'token-lookups'),
  'org.metadata.set': org(['Organization metadata set', 'Organisations-Metadaten gesetzt'], 'token-lookups'),
  'org.metadata.removed': org(['Organization metadata removed', 'Organisations-Metadaten entfernt'], 'token-lookups'),
  'org.login_policy.changed': org(null, 'token-lookups'),
  'org.login_policy.factors.set': org(['Login policy set', 'Login-Richtlinie gesetzt'], 'login-policy'),
  'org.login_policy.factors.reset': org(['Login policy reset', 'Login-Richtlinie zurückgesetzt'], 'login-policy'),
};
