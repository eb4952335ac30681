import type { Declarations, Empty } from '../declare';

export interface AuthorizationEvents {
  'authorization.added': { userId: string; projectId: string; projectGrantId?: string | null; roleKeys: string[] };
  'authorization.changed': { roleKeys: string[] };
  'authorization.removed': Empty;
  'administrator.added': { userId: string; roles: string[] };
  'administrator.changed': { userId: string; roles: string[] };
  'administrator.removed': { userId: string };
}

// An administrator event is appended to the resource administered; the member's cached principal holds its roles.
const ADMINISTERED = ['instance', 'org', 'project'] as const;
const MEMBER = ['token-lookups', 'member-principal'] as const;

export const authorizationEvents: Declarations<AuthorizationEvents> = {
  'authorization.added': {
    aggregate: 'authorization',
    names: ['Authorization added', 'Berechtigung hinzugefügt'],
    invalidates: ['token-lookups'],
  },
  'authorization.changed': {
    aggregate: 'authorization',
    names: ['Authorization changed', 'Berechtigung geändert'],
    invalidates: ['token-lookups'],
  },
  'authorization.removed': {
    aggregate: 'authorization',
    names: ['Authorization removed', 'Berechtigung entfernt'],
    invalidates: ['token-lookups'],
  },
  'administrator.added': {
    aggregate: ADMINISTERED,
    names: ['Administrator added', 'Administrator hinzugefügt'],
    invalidates: MEMBER,
  },
  'administrator.changed': {
    aggregate: ADMINISTERED,
    names: ['Administrator changed', 'Administrator geändert'],
    invalidates: MEMBER,
  },
  'administrator.removed': {
    aggregate: ADMINISTERED,
    names: ['Administrator removed', 'Administrator entfernt'],
    invalidates: MEMBER,
  },
};
