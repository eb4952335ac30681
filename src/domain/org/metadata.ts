import { and, eq, inArray, sql } from 'drizzle-orm';
import { orgMetadata } from '../../db/schema/index';
import type { Ctx } from '../context';
import { invalidArgument } from '../errors';
import { execute } from '../execute';
import { requireId, requireText } from '../instance/validate';
import { orgForChange } from './access';
import { storedMetadataValue } from '../metadata-value';

const MAX_VALUE_BYTES = 500 * 1024;

/** Sets metadata entries; values are bytes, stored base64-encoded. */
export async function setOrganizationMetadata(
  ctx: Ctx,
  input: { orgId: string; metadata: { key: string; value: Uint8Array }[] },
): Promise<{ setAt: Date }> {
  const orgId = requireId('organization_id', input.orgId);
  if (input.metadata.length === 0) throw invalidArgument('Errors.Invalid.metadata', 'metadata must not be empty');
  const entries = input.metadata.map((m, i) => {
    const key = requireText(`metadata[${i}].key`, m.key);
    if (m.value.length === 0 || m.value.length > MAX_VALUE_BYTES) {
      throw invalidArgument('Errors.Invalid.metadata', `metadata[${i}].value must have 1 to ${MAX_VALUE_BYTES} bytes`);
    }
    return { orgId, key, value: storedMetadataValue(m.value) };
  });
  return execute(ctx, async (work) => {
    await orgForChange(work, orgId, 'org.write');
    const setAt = new Date();
    for (const e of entries) {
      await work.tx
        .insert(orgMetadata)
        .values({ ...e, createdAt: setAt, changedAt: setAt })
        .onConflictDoUpdate({
          target: [orgMetadata.orgId, orgMetadata.key],
          set: { value: sql`excluded.value`, changedAt: setAt },
        });
      work.push({
        aggregateType: 'org',
        aggregateId: orgId,
        type: 'org.metadata.set',
        payload: { key: e.key, value: e.value },
        resourceOwner: orgId,
      });
    }
    return { setAt };
  });
}

export async function deleteOrganizationMetadata(
  ctx: Ctx,
  input: { orgId: string; keys: string[] },
): Promise<{ deletedAt: Date }> {
  const orgId = requireId('organization_id', input.orgId);
  if (input.keys.length === 0) throw invalidArgument('Errors.Invalid.keys', 'keys must not be empty');
  return execute(ctx, async (work) => {
    await orgForChange(work, orgId, 'org.write');
    const gone = await work.tx
      .delete(orgMetadata)
      .where(and(eq(orgMetadata.orgId, orgId), inArray(orgMetadata.key, input.keys)))
      .returning({ key: orgMetadata.key });
    for (const g of gone) {
      work.push({
        aggregateType: 'org',
        aggregateId: orgId,
        type: 'org.metadata.removed',
        payload: { key: g.key },
        resourceOwner: orgId,
      });
    }
    return { deletedAt: new Date() };
  });
}
