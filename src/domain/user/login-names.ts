import { type SQL, or, sql } from 'drizzle-orm';
import { orgDomains, users } from '../../db/schema/index';

/**
 * What a login name is — the one rule the login, the session API and the user filters share:
 * - `<username>@<domain>` for the organization's primary domain and every verified domain of it;
 * - the username alone when it is unique in the instance (username_scope '', see username-scope.ts:
 *   organizations with userLoginMustBeDomain false, and machine users).
 * Conditions are on `users` alone; the name is compared lower-cased (domains are stored lower-cased).
 */
export function isLoginName(name: string): SQL {
  const lower = name.toLowerCase();
  const alternatives: SQL[] = [sql`(${users.usernameScope} = '' and lower(${users.username}) = ${lower})`];
  // A username may itself contain '@': every split of the name is tried.
  for (let i = lower.indexOf('@'); i > 0; i = lower.indexOf('@', i + 1)) {
    const username = lower.slice(0, i);
    const domain = lower.slice(i + 1);
    alternatives.push(
      // The primary domain is always a verified domain of the organization (org/commands.ts, domains.ts).
      sql`(lower(${users.username}) = ${username} and ${users.orgId} in (
        select ${orgDomains.orgId} from ${orgDomains}
        where ${orgDomains.domain} = ${domain} and ${orgDomains.isVerified}))`,
    );
  }
  return or(...alternatives)!;
}

/** A login name, or a bare username (which the login accepts while only one user has it). */
export function isLoginNameOrUsername(name: string): SQL {
  return or(isLoginName(name), sql`lower(${users.username}) = ${name.toLowerCase()}`)!;
}

/** The user's login names: `<username>@<domain>` per domain (primary first), then the bare username when it is one. */
export function loginNamesOf(
  u: { username: string; usernameScope: string; primaryDomain: string },
  verifiedDomains: string[] | undefined,
): string[] {
  const domains = verifiedDomains?.length ? verifiedDomains : [u.primaryDomain];
  const names = [u.primaryDomain, ...domains.filter((d) => d !== u.primaryDomain)].map((d) => `${u.username}@${d}`);
  return u.usernameScope === '' ? [...names, u.username] : names;
}
