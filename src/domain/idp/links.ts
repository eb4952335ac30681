import { and, eq } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { idpLinks } from '../../db/schema/index';
import type { Ctx } from '../context';
import { failedPrecondition, invalidArgument, notFound } from '../errors';
import { type UnitOfWork, type UniqueConstraintErrors, execute } from '../execute';
import { alreadyExists } from '../errors';
import { listRows } from '../list/query';
import { type PageRequest, page } from '../list/page';
import { authorize, readUser, userForChange, userNotFound } from '../user/access';
import { findProvider, providerNotFound } from './access';
import { requireProviderCovers } from './coverage';

export type IdpLink = typeof idpLinks.$inferSelect;

/** Which error each unique index written here stands for; src/wiring.ts hands it to execute(). */
export const idpUniqueConstraints: UniqueConstraintErrors = {
  identity_providers_pkey: () =>
    alreadyExists('Errors.IdP.AlreadyExists', 'an identity provider with this id already exists'),
  idp_links_external_uq: () =>
    alreadyExists('Errors.IdP.LinkExists', 'this account of the identity provider is already linked to a user'),
};

export interface LinkInput {
  idpId: string;
  externalUserId: string;
  externalUsername?: string;
}

/** The Portcullis user an upstream account is linked to. */
export async function findLinkedUserId(db: Db, idpId: string, externalUserId: string): Promise<string | undefined> {
  const [row] = await db
    .select({ userId: idpLinks.userId })
    .from(idpLinks)
    .where(and(eq(idpLinks.idpId, idpId), eq(idpLinks.externalUserId, externalUserId)));
  return row?.userId;
}

/**
 * Links an upstream account to a human user inside a running command. The provider must be one the
 * user's organization may use (the instance's or the organization's own) and reach the user
 * (requireProviderCovers): every way of linking ends here.
 */
export async function addIdpLinkIn(
  work: UnitOfWork,
  user: { id: string; orgId: string; type: string },
  link: LinkInput,
): Promise<Date> {
  if (!link.externalUserId) throw invalidArgument('Errors.IdP.Invalid', 'idp_link.user_id is required');
  if (user.type !== 'HUMAN')
    throw failedPrecondition('Errors.User.NotHuman', 'only human users sign in through identity providers');
  const provider = await findProvider(work.tx, link.idpId);
  if (!provider || (provider.orgId && provider.orgId !== user.orgId)) throw providerNotFound();
  await requireProviderCovers(work.tx, provider, user.id);
  const [row] = await work.tx
    .insert(idpLinks)
    .values({
      idpId: provider.id,
      externalUserId: link.externalUserId,
      externalUsername: link.externalUsername ?? '',
      userId: user.id,
      orgId: user.orgId,
    })
    .returning({ createdAt: idpLinks.createdAt });
  work.push({
    aggregateType: 'user',
    aggregateId: user.id,
    type: 'user.human.idp.link.added',
    payload: { idpId: provider.id, externalUserId: link.externalUserId, externalUsername: link.externalUsername ?? '' },
    resourceOwner: user.orgId,
  });
  return row.createdAt;
}

/**
 * AddIDPLink: an administrator links an upstream account by its id. Needs `user.write` on the user and
 * every permission the user holds: a link is a way to sign in as the user.
 */
export async function addIdpLink(ctx: Ctx, userId: string, link: LinkInput): Promise<Date> {
  if (!link.idpId) throw invalidArgument('Errors.IdP.Invalid', 'idp_link.idp_id is required');
  return execute(ctx, async (work) => {
    const user = await userForChange(work, userId, 'user.write');
    return addIdpLinkIn(work, user, link);
  });
}

export async function listIdpLinks(ctx: Ctx, input: { userId: string; page?: PageRequest }) {
  const user = await readUser(ctx.db, input.userId);
  if (!user) throw userNotFound();
  authorize(ctx, user, 'user.read', { self: true });
  return listRows(ctx.db, idpLinks, eq(idpLinks.userId, user.id), page(input.page), idpLinks.createdAt);
}

/** RemoveIDPLink: `user.write` on the user (and its permissions), or the user. */
export async function removeIdpLink(
  ctx: Ctx,
  input: { userId: string; idpId: string; externalUserId: string },
): Promise<Date> {
  return execute(ctx, async (work) => {
    const user = await userForChange(work, input.userId, 'user.write', { self: true });
    const removed = await work.tx
      .delete(idpLinks)
      .where(
        and(
          eq(idpLinks.userId, user.id),
          eq(idpLinks.idpId, input.idpId),
          eq(idpLinks.externalUserId, input.externalUserId),
        ),
      )
      .returning();
    if (removed.length === 0) throw notFound('Errors.IdP.LinkNotFound', 'the user has no such link');
    work.push({
      aggregateType: 'user',
      aggregateId: user.id,
      type: 'user.human.idp.link.removed',
      payload: { idpId: input.idpId, externalUserId: input.externalUserId },
      resourceOwner: user.orgId,
    });
    return new Date();
  });
}
