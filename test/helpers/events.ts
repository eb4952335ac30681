import { and, asc, eq, gt, max } from 'drizzle-orm';
import { events } from '../../src/db/schema/index';
import type { TestServer } from './server';

/** The events of one user, oldest first, optionally of one type. */
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
