import { administrators } from '../../db/schema/index';
import { ROLES, isRole } from '../../authz/roles';
import { alreadyExists, invalidArgument } from '../errors';
import { type UnitOfWork, type UniqueConstraintErrors } from '../execute';

/** Which error each unique index written here stands for; src/wiring.ts hands it to execute(). */
export const administratorUniqueConstraints: UniqueConstraintErrors = {
  administrators_user_id_resource_type_resource_id_pk: () =>
    alreadyExists('Errors.Member.AlreadyExists', 'the user is already an administrator of this resource'),
};

export interface AddAdministratorInput {
  userId: string;
  resourceType: 'INSTANCE' | 'ORG' | 'PROJECT';
  resourceId: string;
  resourceOwner: string;
  roles: string[];
}

export function checkRoles(resourceType: AddAdministratorInput['resourceType'], roles: string[]): void {
  if (roles.length === 0) throw invalidArgument('Errors.Member.Roles.Empty', 'roles must not be empty');
  for (const r of roles) {
    if (!isRole(r) || ROLES[r].on !== resourceType) {
      throw invalidArgument(
        'Errors.Member.Role.Invalid',
        `role "${r}" cannot be granted on ${resourceType.toLowerCase()}`,
      );
    }
  }
}

/** Makes a user an administrator of the instance, an organization or a project. */
export async function addAdministrator(work: UnitOfWork, input: AddAdministratorInput): Promise<void> {
  checkRoles(input.resourceType, input.roles);
  await work.tx.insert(administrators).values(input);
  const aggregateType =
    input.resourceType === 'INSTANCE' ? 'instance' : input.resourceType === 'ORG' ? 'org' : 'project';
  work.push({
    aggregateType,
    aggregateId: input.resourceId,
    type: 'administrator.added',
    payload: { userId: input.userId, roles: input.roles },
    resourceOwner: input.resourceOwner,
  });
}
