import { sql } from 'drizzle-orm';
import type { Sql } from 'postgres';
import type { Db } from '../../db/client';
import type { Ctx } from '../context';
import type { AggregateType, EventPayloads, EventType } from '../events/registry';

/**
 * Multi-row writes for the bulk import. On PostgreSQL the rows stream in with COPY (the fastest way
 * in); on PGlite, thousands of rows per statement go as one JSON parameter that the database unpacks
 * with jsonb_to_recordset: one parameter instead of one per value keeps every batch under the
 * protocol's 65,535-parameter limit and saves the per-value binding cost.
 */
export const BATCH_ROWS = 5000;

export interface BulkUserRow {
  id: string;
  org_id: string;
  type: 'HUMAN' | 'MACHINE';
  state: string;
  username: string;
  /** see domain/user/username-scope.ts */
  username_scope: string;
  given_name?: string | null;
  family_name?: string | null;
  nick_name?: string | null;
  display_name?: string | null;
  preferred_language?: string | null;
  gender?: string | null;
  email?: string | null;
  email_verified?: boolean;
  phone?: string | null;
  phone_verified?: boolean;
  password_hash?: string | null;
  password_change_required?: boolean;
  otp_secret?: string | null;
  machine_name?: string | null;
  description?: string | null;
  access_token_type?: string | null;
}

const USER_COLUMNS = [
  'id',
  'org_id',
  'type',
  'state',
  'username',
  'username_scope',
  'given_name',
  'family_name',
  'nick_name',
  'display_name',
  'preferred_language',
  'gender',
  'email',
  'email_verified',
  'phone',
  'phone_verified',
  'password_hash',
  'password_change_required',
  'password_changed_at',
  'otp_secret',
  'machine_name',
  'description',
  'access_token_type',
] as const;

export async function insertUsers(tx: Db, rows: BulkUserRow[]): Promise<void> {
  if (rows.length === 0) return;
  const pg = copyClient(tx);
  if (pg) {
    const now = new Date().toISOString();
    const values = rows.map((r) =>
      USER_COLUMNS.map((c) =>
        c === 'password_changed_at'
          ? r.password_hash
            ? now
            : null
          : c === 'email_verified' || c === 'phone_verified' || c === 'password_change_required'
            ? (r[c] ?? false)
            : (r[c] ?? null),
      ),
    );
    return copyRows(pg, 'users', USER_COLUMNS, values);
  }
  await tx.execute(sql`
    insert into users (id, org_id, type, state, username, username_scope, given_name, family_name, nick_name,
      display_name, preferred_language, gender, email, email_verified, phone, phone_verified, password_hash,
      password_change_required, password_changed_at, otp_secret, machine_name, description, access_token_type)
    select r.id, r.org_id, r.type, r.state, r.username, r.username_scope, r.given_name, r.family_name, r.nick_name,
      r.display_name, r.preferred_language, r.gender, r.email, coalesce(r.email_verified, false), r.phone,
      coalesce(r.phone_verified, false), r.password_hash, coalesce(r.password_change_required, false),
      case when r.password_hash is null then null else now() end, r.otp_secret, r.machine_name, r.description,
      r.access_token_type
    from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as r(id text, org_id text, type text, state text,
      username text, username_scope text, given_name text, family_name text, nick_name text, display_name text,
      preferred_language text, gender text, email text, email_verified boolean, phone text,
      phone_verified boolean, password_hash text, password_change_required boolean, otp_secret text, machine_name text,
      description text, access_token_type text)`);
}

/**
 * Imported TOTP secrets become ready TOTP factors of their users, as the migration did for the users
 * imported before factors existed: one INSERT … SELECT over the users just written.
 */
export async function insertImportedTotpFactors(tx: Db, userIds: string[]): Promise<void> {
  if (userIds.length === 0) return;
  await tx.execute(sql`
    insert into user_factors (id, user_id, org_id, type, state, secret)
    select 'otp_' || u.id, u.id, u.org_id, 'totp', 'ready', upper(u.otp_secret)
    from users u
    where u.id in (select jsonb_array_elements_text(${JSON.stringify(userIds)}::jsonb)) and u.otp_secret is not null
    on conflict do nothing`);
}

export async function insertUserMetadata(
  tx: Db,
  rows: { user_id: string; key: string; value: string }[],
): Promise<void> {
  if (rows.length === 0) return;
  await tx.execute(sql`
    insert into user_metadata (user_id, key, value)
    select r.user_id, r.key, r.value
    from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as r(user_id text, key text, value text)`);
}

/** An event written by the bulk import, past execute(): its type and payload are the registry's all the same. */
export interface EventRow<T extends EventType = EventType> {
  aggregate_type: AggregateType;
  aggregate_id: string;
  sequence: number;
  event_type: T;
  payload: EventPayloads[T];
  resource_owner: string;
}

/** Appends events edited by the context's caller; a scan of the one JSON array keeps their order. */
export async function appendEvents(tx: Db, ctx: Ctx, rows: EventRow[]): Promise<void> {
  if (rows.length === 0) return;
  const pg = copyClient(tx);
  if (pg) {
    const columns = [
      'instance_id',
      'aggregate_type',
      'aggregate_id',
      'sequence',
      'event_type',
      'payload',
      'editor_user_id',
      'editor_service',
      'resource_owner',
    ];
    const { instanceId, service } = ctx;
    const editor = ctx.principal.userId;
    const values = rows.map((r) => [
      instanceId,
      r.aggregate_type,
      r.aggregate_id,
      r.sequence,
      r.event_type,
      JSON.stringify(r.payload),
      editor,
      service,
      r.resource_owner,
    ]);
    return copyRows(pg, 'events', columns, values);
  }
  await tx.execute(sql`
    insert into events (instance_id, aggregate_type, aggregate_id, sequence, event_type, payload,
      editor_user_id, editor_service, resource_owner)
    select ${ctx.instanceId}, r.aggregate_type, r.aggregate_id, r.sequence, r.event_type, r.payload,
      ${ctx.principal.userId}, ${ctx.service}, r.resource_owner
    from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as r(aggregate_type text, aggregate_id text,
      sequence integer, event_type text, payload jsonb, resource_owner text)`);
}

/** Runs `write` over `rows` in slices of BATCH_ROWS, checking `beforeEach` (the deadline) between them. */
export async function inBatches<T>(
  rows: T[],
  write: (slice: T[]) => Promise<void>,
  beforeEach: () => void,
): Promise<void> {
  for (let i = 0; i < rows.length; i += BATCH_ROWS) {
    beforeEach();
    await write(rows.slice(i, i + BATCH_ROWS));
  }
}

/**
 * The postgres.js connection behind a drizzle transaction on PostgreSQL (undefined on PGlite). COPY
 * must run on the transaction's own connection, which drizzle keeps as `session.client`.
 */
function copyClient(tx: Db): Sql | undefined {
  const client = (tx as any).session?.client;
  return typeof client === 'function' && typeof client.unsafe === 'function' && typeof client.savepoint === 'function'
    ? client
    : undefined;
}

/** COPY … FROM STDIN in text format, written in chunks of a few thousand lines. */
async function copyRows(pg: Sql, table: string, columns: readonly string[], rows: unknown[][]): Promise<void> {
  const stream = await pg.unsafe(`copy ${table} (${columns.join(', ')}) from stdin`).writable();
  const done = new Promise<void>((resolve, reject) => {
    stream.once('finish', resolve);
    stream.once('error', reject);
  });
  for (let i = 0; i < rows.length; i += 2000) {
    let chunk = '';
    for (const row of rows.slice(i, i + 2000)) chunk += `${row.map(copyValue).join('\t')}\n`;
    if (!stream.write(chunk)) await new Promise((r) => stream.once('drain', r));
  }
  stream.end();
  await done;
}

function copyValue(v: unknown): string {
  if (v === null || v === undefined) return '\\N';
  return String(v).replace(/[\\\t\n\r]/g, (ch) =>
    ch === '\\' ? '\\\\' : ch === '\t' ? '\\t' : ch === '\n' ? '\\n' : '\\r',
  );
}
