import { inArray, sql } from 'drizzle-orm';
import { queryRows } from '../../db/client';
import { orgs } from '../../db/schema/index';
import { failedPrecondition } from '../errors';
import type { UnitOfWork } from '../execute';
import { getInstanceSettings, readInstanceSettings } from '../instance/settings';
import type { Source } from '../context';

/**
 * The domain policy decides where a username must be unique (users.username_scope, one unique index):
 * - `userLoginMustBeDomain` true (the instance default): login names are `<username>@<organization
 *   domain>`, so the username is unique within its organization and two organizations may each have
 *   an `alice` (scope = the organization's id);
 * - false for an organization: its usernames are login names on their own, unique in the instance
 *   (scope '');
 * - machine users: always the instance, since their username is the client id of client credentials.
 */
export function usernameScope(type: string, orgId: string, mustBeDomain: boolean): string {
  return type === 'HUMAN' && mustBeDomain ? orgId : '';
}

/**
 * The effective domain policy of each organization (its own, else the instance's), read in the
 * caller's transaction.
 */
export async function mustBeDomainOf(
  src: Source,
  instanceId: string,
  orgIds: string[],
  /** each organization's own setting (null: the instance's), when the caller read the rows already */
  known?: ReadonlyMap<string, boolean | null>,
): Promise<Map<string, boolean>> {
  const ids = [...new Set(orgIds)];
  // The cached settings: creates are a hot path, and a policy change rescopes every user anyway.
  const fallback = (await getInstanceSettings(src, instanceId)).userLoginMustBeDomain;
  const missing = ids.filter((id) => !known?.has(id));
  const rows = missing.length
    ? await src.db.select({ id: orgs.id, own: orgs.userLoginMustBeDomain }).from(orgs).where(inArray(orgs.id, missing))
    : [];
  const own = new Map<string, boolean | null>([...(known ?? []), ...rows.map((r) => [r.id, r.own] as const)]);
  return new Map(ids.map((id) => [id, own.get(id) ?? fallback]));
}

/** The scope of each new user's username, for a batch of users (one query). */
export async function usernameScopes(
  src: Source,
  instanceId: string,
  entries: { type: string; orgId: string }[],
  known?: ReadonlyMap<string, boolean | null>,
): Promise<string[]> {
  const policy = await mustBeDomainOf(
    src,
    instanceId,
    entries.map((e) => e.orgId),
    known,
  );
  return entries.map((e) => usernameScope(e.type, e.orgId, policy.get(e.orgId) ?? true));
}

/**
 * After a change of the domain policy (an organization's or the instance's): moves every username to
 * its new scope, in the command's transaction. When two users would then share a username in one
 * scope, the change is refused and names them, so the operator can rename one first.
 */
export async function rescopeUsernames(work: UnitOfWork): Promise<void> {
  const instanceDefault = (await readInstanceSettings(work.tx, work.ctx.instanceId)).userLoginMustBeDomain;
  const target = sql`
    case when u.type = 'HUMAN' and coalesce(o.user_login_must_be_domain, ${instanceDefault}) then u.org_id else '' end`;
  const [clash] = await queryRows<{ name: string }>(
    work.tx,
    sql`
      select lower(u.username) as name from users u join orgs o on o.id = u.org_id
      where u.state <> 'REMOVED'
      group by ${target}, lower(u.username) having count(*) > 1 limit 1`,
  );
  if (clash) {
    throw failedPrecondition(
      'Errors.Org.DomainPolicy.UsernameConflict',
      `the username "${clash.name}" would no longer be unique under this domain policy; ` +
        'rename or remove one of those users first',
    );
  }
  await work.tx.execute(sql`
    update users u set username_scope = ${target} from orgs o
    where o.id = u.org_id and u.username_scope <> ${target}`);
}
