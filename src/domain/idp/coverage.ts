import { membershipsOf } from '../administrator/memberships';
import { Principal } from '../../authz/principal';
import type { Db } from '../../db/client';
import { permissionDenied } from '../errors';
import { findProvider, providerNotFound } from './access';

/**
 * Who a provider acts for. Whoever controls a provider's configuration controls who its upstream says
 * a user is, so a provider has its owner's authority and no more: an instance provider the instance
 * administrators' (everything), an organization's provider that organization's owners'.
 */
function ownerOf(provider: { orgId: string | null }): Principal {
  if (!provider.orgId) {
    return new Principal('', '', [
      { resourceType: 'INSTANCE', resourceId: '', resourceOwner: '', roles: ['IAM_OWNER'] },
    ]);
  }
  const org = provider.orgId;
  return new Principal('', org, [{ resourceType: 'ORG', resourceId: org, resourceOwner: org, roles: ['ORG_OWNER'] }]);
}

/**
 * The rule of every path that binds an upstream account to a user or signs a user in through one
 * (hosted login, SessionService checks, AddIDPLink, re-pointing a provider): the provider's owner must
 * cover every permission the user holds (the rule of `requireCovers`). Otherwise an organization owner
 * who runs the upstream answers with an instance administrator's email or id and signs in as them.
 */
export async function providerCovers(db: Db, provider: { orgId: string | null }, userId: string): Promise<boolean> {
  return ownerOf(provider).covers(await membershipsOf(db, userId));
}

const providerCannotReach = () =>
  permissionDenied(
    "this identity provider cannot sign in this user: the user holds permissions beyond the provider's organization",
    'Errors.IdP.UserPrivileged',
  );

export async function requireProviderCovers(db: Db, provider: { orgId: string | null }, userId: string): Promise<void> {
  if (!(await providerCovers(db, provider, userId))) throw providerCannotReach();
}

/** The same rule for a provider known by id; a removed provider reaches nobody. */
export async function requireIdpCovers(db: Db, idpId: string, userId: string): Promise<void> {
  const provider = await findProvider(db, idpId);
  if (!provider) throw providerNotFound();
  await requireProviderCovers(db, provider, userId);
}
