import { ResourceType } from '../../../gen/portcullis/administrator/v2/administrator_service_pb';

/**
 * The administrator roles each kind of resource takes. The API has no RPC that lists them: they are the
 * fixed names of README "Permissions" (the server's role table, src/authz/roles.ts), kept here once.
 */
export const ADMIN_ROLES: Record<number, string[]> = {
  [ResourceType.INSTANCE]: ['IAM_OWNER', 'IAM_OWNER_VIEWER', 'IAM_USER_MANAGER', 'IAM_IMPERSONATOR'],
  [ResourceType.ORGANIZATION]: ['ORG_OWNER', 'ORG_USER_MANAGER', 'ORG_IMPERSONATOR'],
  [ResourceType.PROJECT]: ['PROJECT_OWNER', 'PROJECT_OWNER_VIEWER'],
};
