/**
 * The one role → permission table. Roles are granted through administrator memberships on the
 * instance, an organization or a project; a permission from a membership applies to that resource
 * (and, for the instance, to everything in it). The table in docs/permissions.md mirrors this one.
 */
export const PERMISSIONS = [
  'iam.read',
  'iam.write',
  'iam.policy.write',
  'org.read',
  'org.write',
  'org.create',
  'org.delete',
  'user.read',
  'user.write',
  'user.delete',
  'user.credential.write',
  'project.read',
  'project.write',
  'project.delete',
  'project.role.write',
  'project.grant.write',
  'project.app.read',
  'project.app.write',
  'authorization.read',
  'authorization.write',
  'administrator.read',
  'administrator.write',
  'events.read',
  'impersonation',
] as const;
export type Permission = (typeof PERMISSIONS)[number];

const ALL: Permission[] = [...PERMISSIONS];
const READ: Permission[] = PERMISSIONS.filter((p) => p.endsWith('.read'));
// events.read on an organization reads the events whose resource owner it is (src/domain/events/read-access.ts)
const ORG_ALL: Permission[] = PERMISSIONS.filter(
  (p) => !p.startsWith('iam.') && p !== 'org.create' && p !== 'impersonation',
);
const USER_MANAGER: Permission[] = [
  'org.read',
  'user.read',
  'user.write',
  'user.delete',
  'user.credential.write',
  'authorization.read',
  'authorization.write',
  'project.read',
];
const PROJECT_OWNER: Permission[] = [
  'project.read',
  'project.write',
  'project.delete',
  'project.role.write',
  'project.grant.write',
  'project.app.read',
  'project.app.write',
  'authorization.read',
  'authorization.write',
  'administrator.read',
  'administrator.write',
];
const PROJECT_OWNER_VIEWER: Permission[] = [
  'project.read',
  'project.app.read',
  'authorization.read',
  'administrator.read',
];

export const ROLES = {
  IAM_OWNER: { on: 'INSTANCE', permissions: ALL },
  IAM_OWNER_VIEWER: { on: 'INSTANCE', permissions: READ },
  IAM_USER_MANAGER: { on: 'INSTANCE', permissions: [...USER_MANAGER, 'org.create'] as Permission[] },
  IAM_IMPERSONATOR: { on: 'INSTANCE', permissions: ['impersonation', 'user.read', 'org.read'] as Permission[] },
  ORG_OWNER: { on: 'ORG', permissions: ORG_ALL },
  ORG_USER_MANAGER: { on: 'ORG', permissions: USER_MANAGER },
  ORG_IMPERSONATOR: { on: 'ORG', permissions: ['impersonation', 'user.read', 'org.read'] as Permission[] },
  PROJECT_OWNER: { on: 'PROJECT', permissions: PROJECT_OWNER },
  PROJECT_OWNER_VIEWER: { on: 'PROJECT', permissions: PROJECT_OWNER_VIEWER },
} as const satisfies Record<string, { on: 'INSTANCE' | 'ORG' | 'PROJECT'; permissions: readonly Permission[] }>;

export type RoleName = keyof typeof ROLES;
export const ROLE_NAMES = Object.keys(ROLES) as RoleName[];

export function isRole(name: string): name is RoleName {
  return name in ROLES;
}

export function permissionsOf(roles: readonly string[]): Set<Permission> {
  const out = new Set<Permission>();
  for (const r of roles) if (isRole(r)) for (const p of ROLES[r].permissions) out.add(p);
  return out;
}
