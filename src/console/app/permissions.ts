import { useQuery } from '@connectrpc/connect-query';
import { AdministratorService, ResourceType } from '../../../gen/portcullis/administrator/v2/administrator_service_pb';

export interface Scope {
  orgId?: string;
  projectId?: string;
}

export interface Permissions {
  ready: boolean;
  /** holds the permission on this resource, or on the instance */
  can: (permission: string, scope?: Scope) => boolean;
  /** holds the permission on the instance, or on at least one organization or project */
  canSomewhere: (permission: string) => boolean;
  /** holds any role on the instance: its lists span every organization */
  instanceWide: boolean;
  /** the organizations on which the person holds roles of their own */
  orgIds: string[];
  /** holds no administrator role anywhere */
  none: boolean;
}

/**
 * What the signed-in person may do, as the server's role table says (ListMyPermissions): a permission
 * on the instance holds everywhere, one on an organization within it, one on a project on that project.
 * The console offers an action only when `can` says yes; the API decides either way.
 */
export function usePermissions(): Permissions {
  const mine = useQuery(AdministratorService.method.listMyPermissions, {}, { staleTime: 60_000 });
  const memberships = mine.data?.memberships ?? [];
  const can = (permission: string, scope: Scope = {}) =>
    memberships.some(
      (m) =>
        m.permissions.includes(permission) &&
        (m.resourceType === ResourceType.INSTANCE ||
          (m.resourceType === ResourceType.ORGANIZATION && m.resourceId === scope.orgId) ||
          (m.resourceType === ResourceType.PROJECT && m.resourceId === scope.projectId)),
    );
  return {
    ready: mine.isSuccess,
    can,
    canSomewhere: (permission) => memberships.some((m) => m.permissions.includes(permission)),
    instanceWide: memberships.some((m) => m.resourceType === ResourceType.INSTANCE),
    orgIds: memberships.filter((m) => m.resourceType === ResourceType.ORGANIZATION).map((m) => m.resourceId),
    none: mine.isSuccess && memberships.length === 0,
  };
}
