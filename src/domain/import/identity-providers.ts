import { and, eq } from 'drizzle-orm';
import { idpLinks, identityProviders, users } from '../../db/schema/index';
import { DomainError } from '../errors';
import type { UnitOfWork } from '../execute';
import { type PreparedProvider, createIdentityProviderIn, prepareProvider } from '../idp/commands';
import type { IdpEnv } from '../idp/env';
import { addIdpLinkIn } from '../idp/links';
import type { ImportError, ImportOrg, ImportedOrg } from './model';
import { inSavepoint } from './resources';

/** A provider of the body checked before the organization's transaction: ready to insert, or why not. */
export type PreparedIdp = { idpId: string } & ({ prepared: PreparedProvider } | { error: string });

/**
 * Checks the body's providers with every rule that needs no database. It runs before the
 * organization's transaction because a SAML provider given by metadata URL is fetched here: a slow
 * upstream must not hold the transaction's locks.
 */
export async function prepareIdps(org: ImportOrg, env: IdpEnv | undefined): Promise<PreparedIdp[]> {
  const out: PreparedIdp[] = [];
  for (const idp of org.idps) {
    if ('invalid' in idp.provider) {
      out.push({ idpId: idp.idpId, error: idp.provider.invalid });
      continue;
    }
    if (!env) {
      out.push({ idpId: idp.idpId, error: 'Errors.Import.NotSupported' });
      continue;
    }
    try {
      out.push({
        idpId: idp.idpId,
        prepared: await prepareProvider({ ...idp.provider, orgId: org.orgId, id: idp.idpId }),
      });
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      out.push({ idpId: idp.idpId, error: err.key });
    }
  }
  return out;
}

/**
 * Creates the organization's providers under the body's ids, then links the users' upstream
 * accounts, each under a savepoint (a failing item is an errors[] entry and leaves no trace). A
 * provider or link that already exists in the organization as the body describes it (a re-run)
 * counts as imported and is not written again; an id or upstream account that belongs to someone
 * else is an error.
 */
export async function importIdentityProviders(
  work: UnitOfWork,
  env: IdpEnv | undefined,
  org: ImportOrg,
  prepared: PreparedIdp[],
  imported: ImportedOrg,
  errors: ImportError[],
  checkDeadline: () => void,
): Promise<void> {
  const tx = work.tx;
  const orgId = org.orgId;
  const seen = new Set<string>();
  for (const p of prepared) {
    checkDeadline();
    const [found] = await tx
      .select({ orgId: identityProviders.orgId, removedAt: identityProviders.removedAt })
      .from(identityProviders)
      .where(eq(identityProviders.id, p.idpId));
    const ours = found && found.orgId === orgId && found.removedAt === null;
    if (seen.has(p.idpId) || (found && !ours)) {
      errors.push({ type: 'idp', id: p.idpId, key: 'Errors.IdP.AlreadyExisting' });
    } else if (ours) {
      imported.idpIds.push(p.idpId);
    } else if ('error' in p) {
      errors.push({ type: 'idp', id: p.idpId, key: p.error });
    } else {
      const key = await inSavepoint(work, (s) => createIdentityProviderIn(s, env!, p.prepared));
      if (key) errors.push({ type: 'idp', id: p.idpId, key });
      else imported.idpIds.push(p.idpId);
    }
    seen.add(p.idpId);
  }

  // Links counted already: the same link twice in the body is listed once.
  const counted = new Set<string>();
  for (const l of org.userLinks) {
    checkDeadline();
    const id = `${l.userId}_${l.idpId}_${l.externalUserId}`;
    const fail = (key: string) => errors.push({ type: 'user_link', id, key });
    const [linked] = await tx
      .select({ userId: idpLinks.userId })
      .from(idpLinks)
      .where(and(eq(idpLinks.idpId, l.idpId), eq(idpLinks.externalUserId, l.externalUserId)));
    if (linked) {
      if (linked.userId !== l.userId) fail('Errors.IdP.LinkExists');
      else if (!counted.has(id))
        imported.userLinks.push({ userId: l.userId, idpId: l.idpId, externalUserId: l.externalUserId });
      counted.add(id);
      continue;
    }
    // Only users of this organization: a body must not hand another organization's user a way in.
    const [user] = await tx
      .select({ id: users.id, orgId: users.orgId, type: users.type, state: users.state })
      .from(users)
      .where(eq(users.id, l.userId));
    if (!user || user.orgId !== orgId || user.state === 'REMOVED') {
      fail('Errors.User.NotFound');
      continue;
    }
    const key = await inSavepoint(work, (s) =>
      addIdpLinkIn(s, user, { idpId: l.idpId, externalUserId: l.externalUserId, externalUsername: l.externalUsername }),
    );
    if (key) fail(key);
    else imported.userLinks.push({ userId: l.userId, idpId: l.idpId, externalUserId: l.externalUserId });
    counted.add(id);
  }
}
