import { and, asc, eq, gt, max } from 'drizzle-orm';
import { systemPrincipal } from '../../../src/authz/principal';
import { events } from '../../../src/db/schema/index';
import { execute } from '../../../src/domain/execute';
import { addMachineUser } from '../../../src/domain/user/add-users';
import { addPersonalAccessToken } from '../../../src/domain/user/personal-access-tokens';
import type { TestServer } from '../../helpers/server';

let counter = 0;

/**
 * A machine user in `orgId` with a personal access token and no roles; give it memberships through
 * AdministratorService to test what a role allows.
 */
export async function machineUser(
  server: TestServer,
  orgId: string,
  name = 'bot',
  username = `${name}-${++counter}-${Date.now()}`,
): Promise<{ userId: string; token: string }> {
  const instanceId = server.app.bootstrap.instanceId;
  const ctx = {
    db: server.app.database.db,
    instanceId,
    principal: systemPrincipal(instanceId, 'test'),
    service: 'test',
  };
  return execute(ctx, async (work) => {
    const user = await addMachineUser(work, { orgId, username, name });
    const { token } = await addPersonalAccessToken(work, { userId: user.id, orgId });
    return { userId: user.id, token };
  });
}

/** The last event position, to read only the events a test caused. */
export async function lastPosition(server: TestServer): Promise<number> {
  const [row] = await server.app.database.db.select({ p: max(events.position) }).from(events);
  return Number(row?.p ?? 0);
}

/** Events recorded after `position`, optionally of one type. */
export async function eventsSince(server: TestServer, position: number, type?: string) {
  return server.app.database.db
    .select()
    .from(events)
    .where(type ? and(gt(events.position, position), eq(events.eventType, type)) : gt(events.position, position))
    .orderBy(asc(events.position));
}
