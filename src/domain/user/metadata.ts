import type { UnitOfWork } from '../execute';
import { and, eq, inArray } from 'drizzle-orm';
import { userMetadata } from '../../db/schema/index';
import type { Ctx } from '../context';
import { invalidArgument } from '../errors';
import { execute } from '../execute';
import { userForChange } from './access';
import { checkId, checkMetadata, type MetadataEntry, requireText } from './validate';
import { storedMetadataValue } from '../metadata-value';

/** SetUserMetadata: adds or replaces entries. */
export async function setUserMetadata(ctx: Ctx, input: { userId: string; metadata: MetadataEntry[] }): Promise<Date> {
  const userId = checkId('user_id', input.userId);
  if (!input.metadata.length) throw invalidArgument('Errors.User.Metadata.Empty', 'metadata must not be empty');
  checkMetadata('metadata', input.metadata);
  return execute(ctx, async (work) => {
    const user = await userForChange(work, userId, 'user.write');
    return setMetadataRows(work, userId, user.orgId, input.metadata);
  });
}

/** DeleteUserMetadata: removes the keys that exist, one user.metadata.removed event each. */
export async function deleteUserMetadata(ctx: Ctx, input: { userId: string; keys: string[] }): Promise<Date> {
  const userId = checkId('user_id', input.userId);
  if (!input.keys.length) throw invalidArgument('Errors.User.Metadata.Empty', 'keys must not be empty');
  for (const [i, k] of input.keys.entries()) requireText(`keys[${i}]`, k, 200);
  return execute(ctx, async (work) => {
    const user = await userForChange(work, userId, 'user.write');
    const removed = await work.tx
      .delete(userMetadata)
      .where(and(eq(userMetadata.userId, userId), inArray(userMetadata.key, input.keys)))
      .returning({ key: userMetadata.key });
    for (const r of removed) {
      work.push({
        aggregateType: 'user',
        aggregateId: userId,
        type: 'user.metadata.removed',
        payload: { key: r.key },
        resourceOwner: user.orgId,
      });
    }
    return new Date();
  });
}

/** Adds or replaces metadata entries (values stored base64) with one user.metadata.set event each. */
export async function setMetadataRows(
  work: UnitOfWork,
  userId: string,
  orgId: string,
  entries: MetadataEntry[],
): Promise<Date> {
  const now = new Date();
  for (const e of entries) {
    const value = storedMetadataValue(e.value);
    await work.tx
      .insert(userMetadata)
      .values({ userId, key: e.key, value, createdAt: now, changedAt: now })
      .onConflictDoUpdate({ target: [userMetadata.userId, userMetadata.key], set: { value, changedAt: now } });
    work.push({
      aggregateType: 'user',
      aggregateId: userId,
      type: 'user.metadata.set',
      payload: { key: e.key, value },
      resourceOwner: orgId,
    });
  }
  return now;
}
