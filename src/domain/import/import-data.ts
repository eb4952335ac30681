import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import type { Ctx } from '../context';
import { DomainError, alreadyExists, failedPrecondition, invalidArgument, permissionDenied } from '../errors';
import { execute } from '../execute';
import { getInstance } from '../instance/queries';
import { addOrg } from '../org/commands';
import { mustBeDomainOf } from '../user/username-scope';
import { type Account, checkHuman, checkMachine, dropRepeats, hashPlainPasswords, humanAccount, machineAccount, usernameKey } from './accounts';
import { type EventRow, appendEvents, inBatches, insertUserMetadata, insertUsers } from './bulk';
import type { ImportError, ImportOptions, ImportOrg, ImportResult, ImportedOrg } from './model';
import { importResources } from './resources';

const timedOut = () => new DomainError('deadline_exceeded', 'Errors.Import.Timeout', 'the import ran out of time');

/** Organizations written at once, each in its own transaction (PostgreSQL then uses several cores). */
const PARALLEL_ORGS = 2;

/**
 * Bulk import (v1 `POST /admin/v1/import`). Each organization is imported in ONE transaction, so a
 * crash or a timeout leaves it either complete or untouched. Items that cannot be imported become
 * errors[] entries and the rest of the organization goes on. Re-running the same body adds nothing:
 * users, projects, roles, applications, domains, administrators and authorizations that already exist
 * in the organization count as imported and are not written again.
 */
export async function importData(ctx: Ctx, orgs: ImportOrg[], opts: ImportOptions = {}): Promise<ImportResult> {
  if (!ctx.principal.canInstance('iam.write')) throw permissionDenied('the import needs the IAM_OWNER role');
  const instance = await getInstance(ctx);
  const checkDeadline = () => {
    if (opts.deadline !== undefined && Date.now() >= opts.deadline) throw timedOut();
  };
  // Repeated user ids and usernames are found across the whole body first (the first occurrence
  // wins), so organizations written side by side never race for the same username.
  const seenIds = new Set<string>();
  const seenNames = new Set<string>();
  const policy = await mustBeDomainOf(ctx.db, ctx.instanceId, orgs.map((o) => o.orgId));
  const prepared = orgs.map((org) => prepareOrg(org, seenIds, seenNames, policy.get(org.orgId) ?? true));
  const outcomes: { imported?: ImportedOrg; errors: ImportError[] }[] = orgs.map(() => ({ errors: [] }));
  let next = 0;
  const worker = async () => {
    while (next < prepared.length) {
      const i = next++;
      const { org } = prepared[i];
      const errors: ImportError[] = [];
      try {
        checkDeadline();
        outcomes[i] = { imported: await importOrg(ctx, prepared[i], instance.domain, errors, checkDeadline, opts.deadline), errors };
      } catch (err) {
        const key = isQueryCanceled(err) ? 'Errors.Import.Timeout' : err instanceof DomainError ? err.key : undefined;
        if (!key) throw err;
        // The organization's transaction rolled back: its items were not imported, whatever they were.
        outcomes[i] = { errors: [{ type: 'org', id: org.orgId, key }] };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL_ORGS, orgs.length) }, worker));
  return {
    orgs: outcomes.flatMap((o) => (o.imported ? [o.imported] : [])),
    errors: outcomes.flatMap((o) => o.errors),
  };
}

interface PreparedOrg {
  org: ImportOrg;
  accounts: Account[];
  /** problems of single users found before any database work */
  checked: ImportError[];
}

function prepareOrg(org: ImportOrg, seenIds: Set<string>, seenNames: Set<string>, mustBeDomain: boolean): PreparedOrg {
  const checked: ImportError[] = [];
  const accounts: Account[] = [];
  for (const h of org.humanUsers) {
    const key = checkHuman(h);
    if (key) checked.push({ type: 'human_user', id: h.userId ?? h.username, key });
    else accounts.push(humanAccount(org.orgId, h, mustBeDomain));
  }
  for (const m of org.machineUsers) {
    const key = checkMachine(m);
    if (key) checked.push({ type: 'machine_user', id: m.userId ?? m.username, key });
    else accounts.push(machineAccount(org.orgId, m));
  }
  return { org, accounts: dropRepeats(accounts, checked, seenIds, seenNames), checked };
}

async function importOrg(
  ctx: Ctx,
  { org, accounts: unique, checked }: PreparedOrg,
  instanceDomain: string,
  errors: ImportError[],
  checkDeadline: () => void,
  deadline: number | undefined,
): Promise<ImportedOrg> {
  // Users a previous run already imported are skipped below; their passwords need no hashing now.
  const known = await existingUsers(ctx.db, unique.filter((a) => a.password !== undefined).map((a) => a.id));
  await hashPlainPasswords(unique.filter((a) => !known.has(a.id)), checkDeadline);

  return execute(ctx, async (scope) => {
    errors.length = 0;
    errors.push(...checked);
    const tx = scope.tx;
    if (deadline !== undefined) {
      // A single long statement is cancelled by the database itself when the time is up.
      const ms = Math.max(1, deadline - Date.now());
      await tx.execute(sql`select set_config('statement_timeout', ${String(ms)}, true)`);
    }
    // The share lock keeps a concurrent deletion of an existing organization waiting until we are done.
    const [existing] = (await rows(tx, sql`select state from orgs where id = ${org.orgId} for share`)) as { state: string }[];
    if (existing?.state === 'REMOVED') throw failedPrecondition('Errors.Org.NotFound', `organization ${org.orgId} was removed`);
    // Like CreateUser: users only go into an active organization.
    if (existing?.state === 'INACTIVE') throw failedPrecondition('Errors.Org.NotActive', `organization ${org.orgId} is not active`);
    if (existing) {
      errors.push({ type: 'org', id: org.orgId, key: 'Errors.Org.AlreadyExisting' });
    } else {
      if (!org.name?.trim()) throw invalidArgument('Errors.Org.Invalid', `organization ${org.orgId} does not exist and has no name`);
      const taken = await rows(tx, sql`select 1 from orgs where lower(name) = lower(${org.name}) and state <> 'REMOVED'`);
      if (taken.length > 0) throw alreadyExists('Errors.Org.AlreadyExisting', `an organization named "${org.name}" already exists`);
      await addOrg(scope, { id: org.orgId, name: org.name, instanceDomain });
      // The organization's events go first, before the users' bulk-appended ones.
      await scope.flush();
    }

    const present = await existingUsers(tx, unique.map((a) => a.id));
    const takenNames = await takenUsernames(tx, unique);
    const imported: ImportedOrg = {
      orgId: org.orgId,
      humanUserIds: [],
      machineUserIds: [],
      userMetadata: [],
      projectIds: [],
      projectRoles: [],
      oidcAppIds: [],
      apiAppIds: [],
      userGrants: [],
      domains: [],
      orgMembers: [],
    };
    const fresh: Account[] = [];
    for (const a of unique) {
      const owner = present.get(a.id);
      if (owner === org.orgId) {
        (a.kind === 'human_user' ? imported.humanUserIds : imported.machineUserIds).push(a.id);
      } else if (owner !== undefined || takenNames.has(usernameKey(a.row.username_scope, a.username))) {
        errors.push({ type: a.kind, id: a.id, key: 'Errors.User.AlreadyExisting' });
      } else {
        fresh.push(a);
        (a.kind === 'human_user' ? imported.humanUserIds : imported.machineUserIds).push(a.id);
      }
    }
    await inBatches(fresh, (slice) => insertUsers(tx, slice.map((a) => a.row)), checkDeadline);
    await inBatches(fresh, (slice) => appendEvents(tx, ctx, slice.map((a) => ({ ...a.event, sequence: 1 }))), checkDeadline);
    // An imported TOTP secret is recorded as its own event; the secret stays out of the event log.
    const otpEvents: EventRow[] = fresh
      .filter((a) => a.otp)
      .map((a) => ({ aggregate_type: 'user', aggregate_id: a.id, sequence: 2, event_type: 'user.human.otp.added', payload: {}, resource_owner: org.orgId }));
    await inBatches(otpEvents, (slice) => appendEvents(tx, ctx, slice), checkDeadline);

    // Metadata only for users this run created: a re-run must not set it twice.
    const freshIds = new Set(fresh.map((a) => a.id));
    const metadata = new Map<string, { user_id: string; key: string; value: string }>();
    for (const m of org.userMetadata) {
      if (!freshIds.has(m.userId)) {
        if (!present.has(m.userId)) errors.push({ type: 'user_metadata', id: m.userId, key: 'Errors.User.NotFound' });
        continue;
      }
      metadata.set(`${m.userId}\u0000${m.key}`, { user_id: m.userId, key: m.key, value: m.value });
    }
    const metaRows = [...metadata.values()];
    const sequences = new Map<string, number>(otpEvents.map((e) => [e.aggregate_id, 2]));
    const metaEvents: EventRow[] = metaRows.map((m) => {
      const seq = (sequences.get(m.user_id) ?? 1) + 1;
      sequences.set(m.user_id, seq);
      return {
        aggregate_type: 'user',
        aggregate_id: m.user_id,
        sequence: seq,
        event_type: 'user.metadata.set',
        payload: { key: m.key, value: m.value },
        resource_owner: org.orgId,
      };
    });
    await inBatches(metaRows, (slice) => insertUserMetadata(tx, slice), checkDeadline);
    await inBatches(metaEvents, (slice) => appendEvents(tx, ctx, slice), checkDeadline);
    imported.userMetadata = metaRows.map((m) => ({ userId: m.user_id, key: m.key }));

    await importResources(scope, org, imported, errors, checkDeadline);

    for (const item of org.unsupported) errors.push({ type: item.type, id: item.id, key: 'Errors.Import.NotSupported' });
    checkDeadline();
    return imported;
  });
}

async function rows(tx: Db, query: ReturnType<typeof sql>): Promise<Record<string, unknown>[]> {
  const res: any = await tx.execute(query);
  return Array.isArray(res) ? res : res.rows;
}

async function existingUsers(tx: Db, ids: string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const found = (await rows(
    tx,
    sql`select id, org_id from users where id in (select jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb))`,
  )) as { id: string; org_id: string }[];
  return new Map(found.map((r) => [r.id, r.org_id]));
}

/** The accounts' usernames that existing users hold in the same scope, as usernameKey()s. */
async function takenUsernames(tx: Db, accounts: Account[]): Promise<Set<string>> {
  if (accounts.length === 0) return new Set();
  const wanted = accounts.map((a) => ({ scope: a.row.username_scope, name: a.username.toLowerCase() }));
  const found = (await rows(
    tx,
    sql`select u.username_scope as scope, lower(u.username) as name from users u
      join jsonb_to_recordset(${JSON.stringify(wanted)}::jsonb) as w(scope text, name text)
        on u.username_scope = w.scope and lower(u.username) = w.name
      where u.state <> 'REMOVED'`,
  )) as { scope: string; name: string }[];
  return new Set(found.map((r) => usernameKey(r.scope, r.name)));
}

/** PostgreSQL cancelled a statement (statement_timeout): the import's deadline passed mid-statement. */
function isQueryCanceled(err: unknown): boolean {
  for (let e = err as any, depth = 0; e && depth < 5; e = e.cause, depth++) if (e.code === '57014') return true;
  return false;
}
