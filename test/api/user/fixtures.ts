import { and, asc, eq } from 'drizzle-orm';
import { systemPrincipal } from '../../../src/authz/principal';
import { events } from '../../../src/db/schema/index';
import { addAdministrator } from '../../../src/domain/administrator/commands';
import { execute } from '../../../src/domain/execute';
import { addOrg } from '../../../src/domain/org/commands';
import { addMachineUser } from '../../../src/domain/user/add-users';
import { addPersonalAccessToken } from '../../../src/domain/user/personal-access-tokens';
import type { TestServer } from '../../helpers/server';

/** Fixtures the user tests need from other areas, made through their domain functions. */
function systemCtx(server: TestServer) {
  const instanceId = server.app.bootstrap.instanceId;
  return { db: server.app.database.db, instanceId, principal: systemPrincipal(instanceId, 'test'), service: 'test' };
}

export async function makeOrg(server: TestServer, name: string): Promise<{ id: string; primaryDomain: string }> {
  return execute(systemCtx(server), (work) => addOrg(work, { name, instanceDomain: 'localhost' }));
}

/**
 * A machine user of `orgId` with a personal access token and the given administrator roles on that
 * organization (none: a user without roles).
 */
export async function makeCaller(
  server: TestServer,
  orgId: string,
  username: string,
  roles: string[] = [],
): Promise<{ userId: string; token: string }> {
  return execute(systemCtx(server), async (work) => {
    const { id } = await addMachineUser(work, { orgId, username, name: username });
    if (roles.length)
      await addAdministrator(work, {
        userId: id,
        resourceType: 'ORG',
        resourceId: orgId,
        resourceOwner: orgId,
        roles,
      });
    const { token } = await addPersonalAccessToken(work, { userId: id, orgId });
    return { userId: id, token };
  });
}

export async function eventsOf(server: TestServer, aggregateId: string, type?: string) {
  return server.app.database.db
    .select()
    .from(events)
    .where(
      and(
        eq(events.aggregateType, 'user'),
        eq(events.aggregateId, aggregateId),
        ...(type ? [eq(events.eventType, type)] : []),
      ),
    )
    .orderBy(asc(events.position));
}

export function defaultOrgId(server: TestServer): Promise<string> {
  return server.app.database.db.query.instances.findFirst().then((i) => i!.defaultOrgId);
}
