import { type Declarations, declareFor } from '../declare';

/** What an event about a provider says: never a secret or the configuration's keys. */
export interface IdpPayload {
  idpId: string;
  name: string;
  type: string;
  template: string;
}

/**
 * Upstream identity providers (on the instance or the owning organization), users' links to their
 * upstream accounts, and the sign-ins through them (intents).
 */
export interface IdentityProviderEvents {
  'instance.idp.added': IdpPayload;
  'instance.idp.changed': IdpPayload;
  'instance.idp.removed': { idpId: string };
  'org.idp.added': IdpPayload;
  'org.idp.changed': IdpPayload;
  'org.idp.removed': { idpId: string };
  'user.human.idp.link.added': { idpId: string; externalUserId: string; externalUsername: string };
  'user.human.idp.link.removed': { idpId: string; externalUserId: string };
  'idp_intent.started': { idpId: string };
  'idp_intent.succeeded': { idpId: string; externalUserId: string; userId?: string };
  'idp_intent.failed': { idpId: string; reason: string };
  'idp_intent.consumed': { idpId: string; userId: string };
}

const instance = declareFor('instance');
const org = declareFor('org');
const user = declareFor('user');
const intent = declareFor('idp_intent');

export const identityProviderEvents: Declarations<IdentityProviderEvents> = {
  'instance.idp.added': instance(['Identity provider added', 'Identitätsanbieter hinzugefügt']),
  'instance.idp.changed': instance(['Identity provider changed', 'Identitätsanbieter geändert']),
  'instance.idp.removed': instance(['Identity provider removed', 'Identitätsanbieter entfernt']),
  'org.idp.added': org(['Identity provider added', 'Identitätsanbieter hinzugefügt']),
  'org.idp.changed': org(['Identity provider changed', 'Identitätsanbieter geändert']),
  'org.idp.removed': org(['Identity provider removed', 'Identitätsanbieter entfernt']),
  'user.human.idp.link.added': user(['External account linked', 'Externes Konto verknüpft']),
  'user.human.idp.link.removed': user(['External account link removed', 'Verknüpfung mit externem Konto entfernt']),
  'idp_intent.started': intent(null),
  'idp_intent.succeeded': intent([
    'Sign-in at identity provider succeeded',
    'Anmeldung beim Identitätsanbieter erfolgreich',
  ]),
  'idp_intent.failed': intent([
    'Sign-in at identity provider failed',
    'Anmeldung beim Identitätsanbieter fehlgeschlagen',
  ]),
  'idp_intent.consumed': intent(null),
};
