import { systemPrincipal } from '../../../src/authz/principal';
import { projects } from '../../../src/db/schema/index';
import type { Ctx } from '../../../src/domain/context';
import { addAdministrator } from '../../../src/domain/administrator/commands';
import { execute } from '../../../src/domain/execute';
import { newId } from '../../../src/domain/ids';
import { addOrg } from '../../../src/domain/org/commands';
import { addMachineUser } from '../../../src/domain/user/add-users';
import { addPersonalAccessToken } from '../../../src/domain/user/personal-access-tokens';
import type { TestServer } from '../../helpers/server';

// Setup through the domain, as the other services would do it over the API once they exist.

export function systemCtx(server: TestServer): Ctx {
  const instanceId = server.app.bootstrap.instanceId;
  return { db: server.app.database.db, instanceId, principal: systemPrincipal(instanceId, 'test'), service: 'test' };
}

export async function createOrg(server: TestServer, name: string): Promise<string> {
  return execute(systemCtx(server), async (work) => (await addOrg(work, { name, instanceDomain: 'localhost' })).id);
}

export async function createProject(server: TestServer, orgId: string, name: string): Promise<string> {
  const id = newId();
  await execute(systemCtx(server), async (work) => {
    work.created('project', id);
    await work.tx.insert(projects).values({ id, orgId, name });
    work.push({
      aggregateType: 'project',
      aggregateId: id,
      type: 'project.added',
      payload: { name },
      resourceOwner: orgId,
    });
  });
  return id;
}

/** A machine user of `orgId` holding `roles` on the resource (none: no memberships); returns its PAT. */
export async function createCaller(
  server: TestServer,
  orgId: string,
  membership?: {
    resourceType: 'INSTANCE' | 'ORG' | 'PROJECT';
    resourceId: string;
    resourceOwner: string;
    roles: string[];
  },
): Promise<{ userId: string; token: string }> {
  return execute(systemCtx(server), async (work) => {
    const user = await addMachineUser(work, { orgId, username: `caller-${newId()}`, name: 'Test caller' });
    if (membership) await addAdministrator(work, { userId: user.id, ...membership });
    const { token } = await addPersonalAccessToken(work, { userId: user.id, orgId });
    return { userId: user.id, token };
  });
}
