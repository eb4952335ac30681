import { sql } from 'drizzle-orm';
import { type Db, queryRows } from '../../db/client';
import { sqlErrorIn } from '../../db/sql-error';
import type { Ctx } from '../context';
import { DomainError, aborted, alreadyExists, failedPrecondition, invalidArgument, permissionDenied } from '../errors';
import { execute } from '../execute';
import { getInstance } from '../instance/queries';
import { addOrg } from '../org/commands';
import { mustBeDomainOf } from '../user/username-scope';
import { collectGarbage } from './collect-garbage';
import {
  type Account,
  checkHuman,
  checkMachine,
  dropRepeats,
  hashPlainPasswords,
  humanAccount,
  machineAccount,
  usernameKey,
} from './accounts';
import {
  type EventRow,
  appendEvents,
  inBatches,
  insertImportedTotpFactors,
  insertUserMetadata,
  insertUsers,
} from './bulk';
import type {
  ImportError,
  ImportHuman,
  ImportMachine,
  ImportMetadata,
  ImportOptions,
  ImportOrg,
  ImportResult,
  ImportedOrg,
} from './model';
import { type PreparedIdp, importIdentityProviders, prepareIdps } from './identity-providers';
import { importResources } from './resources';

/**
 * A full collection every this many batches (of 5,000 users) keeps the import's memory flat; see
 * collect-garbage.ts.
 */
const GC_EVERY_BATCHES = 1;

const timedOut = () => new DomainError('deadline_exceeded', 'Errors.Import.Timeout', 'the import ran out of time');

/**
 * One organization of the body as it arrives: everything but its users (small), and its users and
 * their metadata in batches read from the body as the import goes, so memory does not grow with the
 * number of users.
 */
export interface StreamedOrg {
  org: ImportOrg;
  batches: AsyncIterable<UserBatch>;
}

export interface UserBatch {
  humans: ImportHuman[];
  machines: ImportMachine[];
  metadata: ImportMetadata[];
}

/**
 * Bulk import (v1 `POST /admin/v1/import`). Each organization is imported in ONE transaction, so a
 * crash or a timeout leaves it either complete or untouched; organizations go one after the other,
 * so a username or user id taken by an earlier one is seen by the later ones. Items that cannot be
 * imported become errors[] entries and the rest of the organization goes on. Re-running the same
 * body adds nothing: users, projects, roles, applications, domains, administrators, authorizations,
 * identity providers and user links that already exist in the organization count as imported and are
 * not written again.
 */
export async function importData(
  ctx: Ctx,
  orgs: AsyncIterable<StreamedOrg>,
  opts: ImportOptions = {},
): Promise<ImportResult> {
  if (!ctx.principal.canInstance('iam.write')) throw permissionDenied('the import needs the IAM_OWNER role');
  const instance = await getInstance(ctx);
  const checkDeadline = () => {
    if (opts.deadline !== undefined && Date.now() >= opts.deadline) throw timedOut();
  };
  const result: ImportResult = { orgs: [], errors: [] };
  for await (const streamed of orgs) {
    const errors: ImportError[] = [];
    try {
      checkDeadline();
      const idps = await prepareIdps(streamed.org, opts.idp, checkDeadline);
      const env = { instanceDomain: instance.domain, idp: opts.idp, idps, deadline: opts.deadline };
      result.orgs.push(await importOrg(ctx, streamed, env, errors, checkDeadline));
      result.errors.push(...errors);
    } catch (err) {
      const key = isQueryCanceled(err) ? 'Errors.Import.Timeout' : err instanceof DomainError ? err.key : undefined;
      if (!key) throw err;
      // The organization's transaction rolled back: its items were not imported, whatever they were.
      result.errors.push({ type: 'org', id: streamed.org.orgId, key });
    }
  }
  return result;
}

/** Checks one batch's users; returns the accounts to write and records the users that cannot be. */
function prepareBatch(orgId: string, batch: UserBatch, mustBeDomain: boolean, errors: ImportError[]): Account[] {
  const accounts: Account[] = [];
  for (const h of batch.humans) {
    const key = checkHuman(h);
    if (key) errors.push({ type: 'human_user', id: h.userId ?? h.username, key });
    else accounts.push(humanAccount(orgId, h, mustBeDomain));
  }
  for (const m of batch.machines) {
    const key = checkMachine(m);
    if (key) errors.push({ type: 'machine_user', id: m.userId ?? m.username, key });
    else accounts.push(machineAccount(orgId, m));
  }
  // Repeats inside the batch; repeats of earlier batches are found in the database below.
  return dropRepeats(accounts, errors, new Set(), new Set());
}

/** What importing one organization needs besides its body. */
interface OrgEnv {
  instanceDomain: string;
  idp: ImportOptions['idp'];
  /** the organization's providers, checked before its transaction */
  idps: PreparedIdp[];
  deadline: number | undefined;
}

async function importOrg(
  ctx: Ctx,
  { org, batches }: StreamedOrg,
  { instanceDomain, idp, idps, deadline }: OrgEnv,
  errors: ImportError[],
  checkDeadline: () => void,
): Promise<ImportedOrg> {
  let started = false;
  return execute(ctx, async (work) => {
    // The users stream by once: a command that would have to run again cannot, and says so.
    if (started)
      throw aborted(
        'Errors.Command.Conflict',
        `organization ${org.orgId} was changed concurrently; run the import again`,
      );
    started = true;
    const tx = work.tx;
    if (deadline !== undefined) {
      // A single long statement is cancelled by the database itself when the time is up.
      const ms = Math.max(1, deadline - Date.now());
      await tx.execute(sql`select set_config('statement_timeout', ${String(ms)}, true)`);
    }
    // The share lock keeps a concurrent deletion of an existing organization waiting until we are done.
    const [existing] = (await queryRows(tx, sql`select state from orgs where id = ${org.orgId} for share`)) as {
      state: string;
    }[];
    if (existing?.state === 'REMOVED')
      throw failedPrecondition('Errors.Org.NotFound', `organization ${org.orgId} was removed`);
    // Like CreateUser: users only go into an active organization.
    if (existing?.state === 'INACTIVE')
      throw failedPrecondition('Errors.Org.NotActive', `organization ${org.orgId} is not active`);
    if (existing) {
      errors.push({ type: 'org', id: org.orgId, key: 'Errors.Org.AlreadyExisting' });
    } else {
      if (!org.name?.trim())
        throw invalidArgument('Errors.Org.Invalid', `organization ${org.orgId} does not exist and has no name`);
      const taken = await queryRows(
        tx,
        sql`select 1 from orgs where lower(name) = lower(${org.name}) and state <> 'REMOVED'`,
      );
      if (taken.length > 0)
        throw alreadyExists('Errors.Org.AlreadyExisting', `an organization named "${org.name}" already exists`);
      await addOrg(work, { id: org.orgId, name: org.name, instanceDomain });
      // The organization's events go first, before the users' bulk-appended ones.
      await work.flush();
    }
    const mustBeDomain =
      (await mustBeDomainOf({ db: tx, runtime: ctx.runtime }, ctx.instanceId, [org.orgId])).get(org.orgId) ?? true;

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
      idpIds: [],
      userLinks: [],
    };
    // Metadata is written after all users, for the users this run created.
    const metadata = new Map<string, { user_id: string; key: string; value: string }>();
    // Users of an earlier run met in this body, so that a repeat of one in the body is an error as on the first run.
    const counted = new Set<string>();
    let batchesDone = 0;
    for await (const batch of batches) {
      checkDeadline();
      if (++batchesDone % GC_EVERY_BATCHES === 0) collectGarbage();
      const accounts = prepareBatch(org.orgId, batch, mustBeDomain, errors);
      for (const m of batch.metadata)
        metadata.set(`${m.userId}\u0000${m.key}`, { user_id: m.userId, key: m.key, value: m.value });
      const present = await existingUsers(
        tx,
        accounts.map((a) => a.id),
      );
      const takenNames = await takenUsernames(tx, accounts);
      const fresh: Account[] = [];
      for (const a of accounts) {
        const owner = present.get(a.id);
        if (owner && owner.orgId === org.orgId && !owner.thisRun && !counted.has(a.id)) {
          // imported by an earlier run: counted (once), not written again
          counted.add(a.id);
          (a.kind === 'human_user' ? imported.humanUserIds : imported.machineUserIds).push(a.id);
        } else if (owner !== undefined || takenNames.has(usernameKey(a.row.username_scope, a.username))) {
          errors.push({ type: a.kind, id: a.id, key: 'Errors.User.AlreadyExisting' });
        } else {
          fresh.push(a);
          (a.kind === 'human_user' ? imported.humanUserIds : imported.machineUserIds).push(a.id);
        }
      }
      await hashPlainPasswords(fresh, checkDeadline);
      await inBatches(
        fresh,
        (slice) =>
          insertUsers(
            tx,
            slice.map((a) => a.row),
          ),
        checkDeadline,
      );
      await inBatches(
        fresh,
        (slice) =>
          appendEvents(
            tx,
            ctx,
            slice.map((a) => ({ ...a.event, sequence: 1 })),
          ),
        checkDeadline,
      );
      const withOtp = fresh.filter((a) => a.otp).map((a) => a.id);
      await inBatches(withOtp, (slice) => insertImportedTotpFactors(tx, slice), checkDeadline);
      // An imported TOTP secret is recorded as its own event; the secret stays out of the event log.
      const otpEvents: EventRow[] = fresh
        .filter((a) => a.otp)
        .map((a) => ({
          aggregate_type: 'user',
          aggregate_id: a.id,
          sequence: 2,
          event_type: 'user.human.otp.added',
          payload: {},
          resource_owner: org.orgId,
        }));
      await inBatches(otpEvents, (slice) => appendEvents(tx, ctx, slice), checkDeadline);
    }

    // Metadata only for users this run created: a re-run must not set it twice.
    const wanted = [...metadata.values()];
    const ids = [...new Set(wanted.map((m) => m.user_id))];
    const owners = new Map<string, { orgId: string; thisRun: boolean; otp: boolean }>();
    for (let i = 0; i < ids.length; i += 10_000)
      for (const [k, v] of await existingUsers(tx, ids.slice(i, i + 10_000))) owners.set(k, v);
    const metaRows = wanted.filter((m) => {
      const owner = owners.get(m.user_id);
      if (!owner) errors.push({ type: 'user_metadata', id: m.user_id, key: 'Errors.User.NotFound' });
      return owner?.thisRun === true && owner.orgId === org.orgId;
    });
    const sequences = new Map<string, number>();
    const metaEvents: EventRow[] = metaRows.map((m) => {
      const seq = (sequences.get(m.user_id) ?? (owners.get(m.user_id)?.otp ? 2 : 1)) + 1;
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

    await importResources(work, org, imported, errors, checkDeadline);
    // Links go in after the users (above) and the providers they point at.
    await importIdentityProviders(work, idp, org, idps, imported, errors, checkDeadline);

    for (const item of org.unsupported)
      errors.push({ type: item.type, id: item.id, key: 'Errors.Import.NotSupported' });
    checkDeadline();
    return imported;
  });
}

/**
 * The users that exist among `ids`: their organization, whether this transaction created them (rows
 * inserted now carry the transaction's timestamp as created_at), and whether they have a TOTP secret.
 */
async function existingUsers(
  tx: Db,
  ids: string[],
): Promise<Map<string, { orgId: string; thisRun: boolean; otp: boolean }>> {
  if (ids.length === 0) return new Map();
  const found = (await queryRows(
    tx,
    sql`select id, org_id, created_at = now() as this_run, otp_secret is not null as otp from users
      where id = any(array(select jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb)))`,
  )) as { id: string; org_id: string; this_run: boolean; otp: boolean }[];
  return new Map(found.map((r) => [r.id, { orgId: r.org_id, thisRun: r.this_run, otp: r.otp }]));
}

/** The accounts' usernames that existing users hold in the same scope, as usernameKey()s. */
async function takenUsernames(tx: Db, accounts: Account[]): Promise<Set<string>> {
  if (accounts.length === 0) return new Set();
  const wanted = accounts.map((a) => ({ scope: a.row.username_scope, name: a.username.toLowerCase() }));
  const found = (await queryRows(
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
  return sqlErrorIn(err, (code) => code === '57014') !== undefined;
}
