import { foreignDomainErrors } from './login-name-domain';
import { inArray } from 'drizzle-orm';
import { orgs } from '../../db/schema/index';
import { DomainError, failedPrecondition, notFound } from '../errors';
import { type UnitOfWork } from '../execute';
import { type UserWithOrg } from './access';
import { type CodeRequest, issueCodes } from './codes';
import type { CreateUserResult, PreparedCreate } from './create-user-input';
import { addUsers } from './add-users';
import { setMetadataRows } from './metadata';

// Writes validated creates in one transaction; the batch writer (create-batch.ts) calls it for a whole batch.

/**
 * Writes validated creates in the caller's transaction: one org lookup, one multi-row insert, then
 * the per-user extras (metadata, codes). A create whose organization is missing or inactive gets
 * its error in place of a result and writes nothing.
 */
export async function applyCreates(
  work: UnitOfWork,
  creates: PreparedCreate[],
): Promise<(CreateUserResult | DomainError)[]> {
  const orgIds = [...new Set(creates.map((c) => (c.user.human ?? c.user.machine).orgId))];
  // with the domain policy the username scopes need: one round trip for both on this hot path
  const found = await work.tx
    .select({
      id: orgs.id,
      state: orgs.state,
      primaryDomain: orgs.primaryDomain,
      mustBeDomain: orgs.userLoginMustBeDomain,
    })
    .from(orgs)
    .where(inArray(orgs.id, orgIds));
  const byId = new Map(found.map((o) => [o.id, o]));
  const results: (CreateUserResult | DomainError)[] = creates.map((c) => {
    const org = byId.get((c.user.human ?? c.user.machine).orgId);
    if (!org || org.state === 'REMOVED') return notFound('Errors.Org.NotFound', 'organization not found');
    if (org.state !== 'ACTIVE') return failedPrecondition('Errors.Org.NotActive', 'the organization is not active');
    return { id: '', createdAt: new Date(0) };
  });
  const shadowing = await foreignDomainErrors(
    work.tx,
    creates.map((c) => c.user.human ?? c.user.machine),
  );
  for (const [i, err] of shadowing.entries()) if (err && !(results[i] instanceof DomainError)) results[i] = err;
  const ok = creates.filter((_, i) => !(results[i] instanceof DomainError));
  const added = await addUsers(
    work,
    ok.map((c) => c.user),
    new Map(found.map((o) => [o.id, o.mustBeDomain])),
  );
  let k = 0;
  const codeRequests: CodeRequest[] = [];
  const codeOwners: { result: CreateUserResult; field: 'emailCode' | 'phoneCode' }[] = [];
  for (let i = 0; i < creates.length; i++) {
    if (results[i] instanceof DomainError) continue;
    const c = creates[i];
    const result: CreateUserResult = { ...added[k++] };
    results[i] = result;
    const h = c.user.human;
    if (!h) continue;
    if (c.metadata?.length) await setMetadataRows(work, result.id, h.orgId, c.metadata);
    const user = {
      id: result.id,
      orgId: h.orgId,
      username: h.username,
      displayName: h.displayName || `${h.givenName} ${h.familyName}`,
      primaryDomain: byId.get(h.orgId)!.primaryDomain,
    } as UserWithOrg;
    if (c.emailCode) {
      codeRequests.push({ user, kind: 'EMAIL_VERIFICATION', delivery: c.emailCode, target: h.email });
      codeOwners.push({ result, field: 'emailCode' });
    }
    if (c.phoneCode) {
      codeRequests.push({ user, kind: 'PHONE_VERIFICATION', delivery: { return: true }, target: h.phone! });
      codeOwners.push({ result, field: 'phoneCode' });
    }
  }
  const codes = await issueCodes(work, codeRequests, { replace: false });
  codeOwners.forEach(({ result, field }, i) => {
    result[field] = codes[i];
  });
  return results;
}
