import { type Declarations, type Empty, declareFor } from '../declare';

export interface AuthorizationEvents {
  'authorization.added': { userId: string; projectId: string; projectGrantId?: string | null; roleKeys: string[] };
  'authorization.changed': { roleKeys: string[] };
  'authorization.deactivated': Empty;
  'authorization.reactivated': Empty;
  'authorization.removed': Empty;
  'administrator.added': { userId: string; roles: string[] };
  'administrator.changed': { userId: string; roles: string[] };
  'administrator.removed': { userId: string };
}

const authorization = declareFor('authorization');
// An administrator event is appended to the resource administered; the member's cached principal holds its roles.
const administrator = declareFor(['instance', 'org', 'project']);

export const authorizationEvents: Declarations<AuthorizationEvents> = {
  'authorization.added': authorization(['Authorization added', 'Berechtigung hinzugefügt'], 'token-lookups'),
  'authorization.changed': authorization(['Authorization changed', 'Berechtigung geändert'], 'token-lookups'),
  'authorization.deactivated': authorization(
    ['Authorization deactivated', 'Berechtigung deaktiviert'],
    'token-lookups',
  ),
  'authorization.reactivated': authorization(
    ['Authorization reactivated', 'Berechtigung reaktiviert'],
    'token-lookups',
  ),
  'authorization.removed': authorization(['Authorization removed', 'Berechtigung entfernt'], 'token-lookups'),
  'administrator.added': administrator(
    ['Administrator added', 'Administrator hinzugefügt'],
    'token-lookups',
    'member-principal',
  ),
  'administrator.changed': administrator(
    ['Administrator changed', 'Administrator geändert'],
    'token-lookups',
    'member-principal',
  ),
  'administrator.removed': administrator(
    ['Administrator removed', 'Administrator entfernt'],
    'token-lookups',
    'member-principal',
  ),
};
