import { and, eq, isNull, or } from 'drizzle-orm';
import { identityProviders } from '../../db/schema/index';
import type { Ctx } from '../context';
import { orgFor } from '../org/access';
import { requireInstancePermission } from '../instance/permission';
import { listRows } from '../list/query';
import { type PageRequest, page } from '../list/page';
import { type ProviderRow, providerFor } from './access';

export async function getIdentityProvider(ctx: Ctx, id: string): Promise<ProviderRow> {
  return providerFor(ctx.db, ctx.principal, id, false);
}

/** The instance's providers, or an organization's together with the instance's (what its login offers). */
export async function listIdentityProviders(ctx: Ctx, req: { orgId?: string; page?: PageRequest }) {
  const p = page(req.page);
  const live = isNull(identityProviders.removedAt);
  if (!req.orgId) {
    requireInstancePermission(ctx.principal, 'iam.read');
    return listRows(
      ctx.db,
      identityProviders,
      and(live, isNull(identityProviders.orgId)),
      p,
      identityProviders.createdAt,
    );
  }
  await orgFor(ctx.db, ctx.principal, req.orgId, 'org.read');
  const scope = or(isNull(identityProviders.orgId), eq(identityProviders.orgId, req.orgId));
  return listRows(ctx.db, identityProviders, and(live, scope), p, identityProviders.createdAt);
}
