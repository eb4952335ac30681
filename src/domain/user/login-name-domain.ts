import { inArray } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { orgDomains } from '../../db/schema/index';
import { invalidArgument } from '../errors';

/** The domain of a username of the form `<name>@<domain>`, lower-cased; undefined otherwise. */
function domainOf(username: string): string | undefined {
  const at = username.lastIndexOf('@');
  return at > 0 && at < username.length - 1 ? username.slice(at + 1).toLowerCase() : undefined;
}

/**
 * Login names cannot be shadowed: `ceo@victim.example` as a username in one organization would read
 * like the login name of `ceo` in the organization that owns `victim.example`. Such a username is
 * refused when its domain is a domain of any other organization of the instance. Returns, for each
 * entry, the error or undefined (one query for a whole batch).
 */
export async function foreignDomainErrors(db: Db, entries: { orgId: string; username: string }[]) {
  const domains = [...new Set(entries.map((e) => domainOf(e.username)).filter((d): d is string => !!d))];
  if (!domains.length) return entries.map(() => undefined);
  const rows = await db
    .select({ domain: orgDomains.domain, orgId: orgDomains.orgId })
    .from(orgDomains)
    .where(inArray(orgDomains.domain, domains));
  return entries.map((e) => {
    const d = domainOf(e.username);
    const owner = d && rows.find((r) => r.domain.toLowerCase() === d && r.orgId !== e.orgId);
    return owner
      ? invalidArgument(
          'Errors.User.Username.ForeignDomain',
          `username: "${d}" is a domain of another organization, so "${e.username}" would shadow a login name there`,
        )
      : undefined;
  });
}

export async function checkUsernameDomain(db: Db, orgId: string, username: string): Promise<void> {
  const [err] = await foreignDomainErrors(db, [{ orgId, username }]);
  if (err) throw err;
}
