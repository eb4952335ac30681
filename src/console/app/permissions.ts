import { useQuery } from '@connectrpc/connect-query';
import { AdministratorService, ResourceType } from '../../../gen/portcullis/administrator/v2/administrator_service_pb';

export interface Scope {
  orgId?: string;
  projectId?: string;
}

/**
 * What the signed-in person may do, as the server's role table says (ListMyPermissions): a permission
 * on the instance holds everywhere, one on an organization within it, one on a project on that project.
 * The console offers an action only when `can` says yes; the API decides either way.
 */
export function usePermissions(): { ready: boolean; can: (permission: string, scope?: Scope) => boolean } {
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
  return { ready: mine.isSuccess, can };
}
