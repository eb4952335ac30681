import { type Permission, permissionsOf } from './roles';

export interface Membership {
  resourceType: 'INSTANCE' | 'ORG' | 'PROJECT';
  resourceId: string;
  /** organization owning the resource (the project's org for PROJECT) */
  resourceOwner: string;
  roles: string[];
}

/**
 * The authenticated caller. `can*` answer permission questions for one resource; the `*UnitOfWork`
 * helpers give the sets of organizations / projects that list queries filter by in SQL.
 */
export class Principal {
  private readonly instancePerms: Set<Permission>;
  private readonly orgPerms = new Map<string, Set<Permission>>();
  private readonly projectPerms = new Map<string, Set<Permission>>();

  constructor(
    readonly userId: string,
    readonly orgId: string,
    readonly memberships: Membership[],
    /** the access token / PAT that authenticated the call, for audit and token exchange */
    readonly tokenInfo: {
      kind: 'pat' | 'access_token' | 'system' | 'anonymous';
      clientId?: string;
      scopes?: string[];
    } = {
      kind: 'system',
    },
  ) {
    this.instancePerms = permissionsOf(
      memberships.filter((m) => m.resourceType === 'INSTANCE').flatMap((m) => m.roles),
    );
    for (const m of memberships) {
      if (m.resourceType === 'ORG') this.orgPerms.set(m.resourceId, permissionsOf(m.roles));
      if (m.resourceType === 'PROJECT') this.projectPerms.set(m.resourceId, permissionsOf(m.roles));
    }
  }

  /** Holds the permission on the whole instance. */
  canInstance(p: Permission): boolean {
    return this.instancePerms.has(p);
  }

  /** Holds the permission on this organization (directly or through the instance). */
  canOrg(p: Permission, orgId: string): boolean {
    return this.instancePerms.has(p) || (this.orgPerms.get(orgId)?.has(p) ?? false);
  }

  /** Holds the permission on this project (directly, through its org, or through the instance). */
  canProject(p: Permission, projectId: string, projectOrgId: string): boolean {
    return this.canOrg(p, projectOrgId) || (this.projectPerms.get(projectId)?.has(p) ?? false);
  }

  /**
   * Holds every permission that these memberships grant, on the same or a wider resource (instance ⊃
   * organization ⊃ project). The rule that keeps higher-privileged accounts out of reach: a caller
   * may act on or as another user only when it covers that user's memberships.
   */
  covers(memberships: readonly Membership[]): boolean {
    return memberships.every((m) => {
      for (const p of permissionsOf(m.roles)) {
        const held =
          m.resourceType === 'INSTANCE'
            ? this.canInstance(p)
            : m.resourceType === 'ORG'
              ? this.canOrg(p, m.resourceId)
              : this.canProject(p, m.resourceId, m.resourceOwner);
        if (!held) return false;
      }
      return true;
    });
  }

  /** Organizations on which the permission is held; `'all'` for instance-wide holders. */
  orgScope(p: Permission): 'all' | string[] {
    if (this.instancePerms.has(p)) return 'all';
    return [...this.orgPerms].filter(([, perms]) => perms.has(p)).map(([id]) => id);
  }

  /** Projects on which the permission is held through a project membership. */
  projectScope(p: Permission): string[] {
    return [...this.projectPerms].filter(([, perms]) => perms.has(p)).map(([id]) => id);
  }

  get isSystem(): boolean {
    return this.tokenInfo.kind === 'system';
  }
}

/** The server itself (bootstrap, background jobs): holds every permission. */
export function systemPrincipal(instanceId: string, service = 'system'): Principal {
  return new Principal(service, '', [
    { resourceType: 'INSTANCE', resourceId: instanceId, resourceOwner: '', roles: ['IAM_OWNER'] },
  ]);
}

export const ANONYMOUS = new Principal('', '', [], { kind: 'anonymous' });
