import { Resolver } from 'node:dns/promises';
import { and, eq } from 'drizzle-orm';
import { orgDomains } from '../../db/schema/index';
import { randomToken } from '../../crypto/random';
import type { Ctx } from '../context';
import { failedPrecondition, invalidArgument, notFound } from '../errors';
import { execute, type UnitOfWork } from '../execute';
import { requireDomain, requireId } from '../instance/validate';
import { orgFor, orgForChange } from './access';
import { dropUnverifiedCopies, requireNotVerifiedElsewhere } from './domain-claim';

// Domain validation: an organization proves it controls a domain with a DNS TXT record holding a
// token the server issued. Only DNS so far: checking it sends nothing but a DNS query, where an HTTP
// check would make the server fetch a URL an organization administrator chose (SSRF).

/** The TXT record's name for a domain. */
const challengeName = (domain: string) => `_portcullis-challenge.${domain}`;

/** The TXT values at a name (each record's strings joined); tests pass their own. */
export type TxtLookup = (name: string) => Promise<string[]>;

const resolver = new Resolver({ timeout: 3000, tries: 2 });
const dnsTxtLookup: TxtLookup = async (name) => (await resolver.resolveTxt(name)).map((r) => r.join(''));

const domainNotFound = () => notFound('Errors.Org.Domain.NotFound', 'the organization has no such domain');

async function unverifiedDomain(work: UnitOfWork, orgId: string, domain: string) {
  const [row] = await work.tx
    .select()
    .from(orgDomains)
    .where(and(eq(orgDomains.orgId, orgId), eq(orgDomains.domain, domain)));
  if (!row) throw domainNotFound();
  if (row.isVerified) throw failedPrecondition('Errors.Org.Domain.Verified', 'the domain is already verified');
  return row;
}

/** Issues a new validation token for an unverified domain (replacing any earlier one). */
export async function generateDomainValidation(
  ctx: Ctx,
  input: { orgId: string; domain: string; type: 'dns' | undefined },
): Promise<{ token: string; url: string }> {
  const orgId = requireId('organization_id', input.orgId);
  const domain = requireDomain('domain', input.domain);
  if (input.type !== 'dns') throw invalidArgument('Errors.Invalid.type', 'type must be DOMAIN_VALIDATION_TYPE_DNS');
  return execute(ctx, async (work) => {
    await orgForChange(work, orgId, 'org.write');
    await unverifiedDomain(work, orgId, domain);
    const token = randomToken(24, 'pc-');
    await work.tx
      .update(orgDomains)
      .set({ validationType: 'dns', validationToken: token })
      .where(and(eq(orgDomains.orgId, orgId), eq(orgDomains.domain, domain)));
    work.push({
      aggregateType: 'org',
      aggregateId: orgId,
      type: 'org.domain.validation.added',
      payload: { domain, validationType: 'dns' },
      resourceOwner: orgId,
    });
    return { token, url: challengeName(domain) };
  });
}

/**
 * Looks the token up in DNS (outside any transaction) and marks the domain verified when one of the
 * TXT values is the token; otherwise refuses with what was found, so the administrator can fix it.
 * The verified domain is the organization's alone: other organizations' unverified copies go.
 */
export async function verifyDomain(
  ctx: Ctx,
  input: { orgId: string; domain: string },
  lookup: TxtLookup = dnsTxtLookup,
): Promise<{ verifiedAt: Date }> {
  const orgId = requireId('organization_id', input.orgId);
  const domain = requireDomain('domain', input.domain);
  await orgFor(ctx.db, ctx.principal, orgId, 'org.write');
  const [row] = await ctx.db
    .select()
    .from(orgDomains)
    .where(and(eq(orgDomains.orgId, orgId), eq(orgDomains.domain, domain)));
  if (!row) throw domainNotFound();
  if (row.isVerified) return { verifiedAt: new Date() };
  const token = row.validationToken;
  if (!token) throw failedPrecondition('Errors.Org.Domain.NoValidation', 'no validation was generated for the domain');
  const name = challengeName(domain);
  let found: string[];
  try {
    found = await lookup(name);
  } catch (err) {
    const code = (err as { code?: string }).code ?? String(err);
    throw failedPrecondition('Errors.Org.Domain.NotValidated', `no TXT record found at ${name} (${code})`);
  }
  if (!found.includes(token))
    throw failedPrecondition(
      'Errors.Org.Domain.NotValidated',
      `the TXT records at ${name} do not hold the token (found: ${found.map((v) => `"${v}"`).join(', ') || 'none'})`,
    );
  return execute(ctx, async (work) => {
    await orgForChange(work, orgId, 'org.write');
    const now = await unverifiedDomain(work, orgId, domain);
    // a token generated again meanwhile is the one that counts
    if (now.validationToken !== token)
      throw failedPrecondition('Errors.Org.Domain.NotValidated', 'a newer validation was generated; verify again');
    await requireNotVerifiedElsewhere(work.tx, orgId, domain);
    await work.tx
      .update(orgDomains)
      .set({ isVerified: true, validationType: null, validationToken: null })
      .where(and(eq(orgDomains.orgId, orgId), eq(orgDomains.domain, domain)));
    work.push({
      aggregateType: 'org',
      aggregateId: orgId,
      type: 'org.domain.verified',
      payload: { domain },
      resourceOwner: orgId,
    });
    await dropUnverifiedCopies(work, orgId, domain);
    return { verifiedAt: new Date() };
  });
}
