import { eq } from 'drizzle-orm';
import { instances } from '../../db/schema/index';
import type { Ctx } from '../context';
import { execute } from '../execute';
import { rescopeUsernames } from '../user/username-scope';
import { lockInstance } from './lock';
import { type InstanceSettings, checkSettings, readInstanceSettings } from './settings';
import { requireInstancePermission } from './permission';
import { checkDynamicRegistrationProject, withoutTokenHash } from './dynamic-registration';
import { checkClientMetadataDocumentsProject } from './client-metadata-documents';

/** Changes the given settings; the others keep their values. The change is one event with the diff. */
export async function updateInstanceSettings(
  ctx: Ctx,
  changes: Partial<InstanceSettings>,
): Promise<{ changedAt: Date; settings: InstanceSettings }> {
  requireInstancePermission(ctx.principal, 'iam.policy.write');
  return execute(ctx, async (work) => {
    await lockInstance(work);
    const current = await readInstanceSettings(work.tx, ctx.instanceId);
    const defined = Object.fromEntries(
      Object.entries(changes).filter(([, v]) => v !== undefined),
    ) as Partial<InstanceSettings>;
    const settings = { ...current, ...defined };
    checkSettings(settings);
    await checkDynamicRegistrationProject(work, settings);
    await checkClientMetadataDocumentsProject(work, settings);
    const changedAt = new Date();
    await work.tx.update(instances).set({ settings, changedAt }).where(eq(instances.id, ctx.instanceId));
    if (defined.userLoginMustBeDomain !== undefined && defined.userLoginMustBeDomain !== current.userLoginMustBeDomain)
      await rescopeUsernames(work);
    work.push({
      aggregateType: 'instance',
      aggregateId: ctx.instanceId,
      type: 'instance.settings.changed',
      payload: withoutTokenHash(defined),
      resourceOwner: ctx.instanceId,
    });
    return { changedAt, settings };
  });
}
