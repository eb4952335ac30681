import postgres from 'postgres';

/**
 * What PostgreSQL counted of the writes of one database: its committed transactions (pg_stat_database),
 * the transaction ids handed out (each transaction that writes takes one), the WAL written
 * (pg_stat_wal) and the rows inserted, updated and deleted per table (pg_stat_user_tables). Counts,
 * not times: they do not depend on the machine.
 *
 * Transaction ids and WAL are counted for the whole PostgreSQL server, so `otherCommits` (commits in
 * every other database) and `autovacuums` say whether something else wrote meanwhile.
 */
export interface Counters {
  commits: number;
  rollbacks: number;
  xids: number;
  walRecords: number;
  walFpi: number;
  walBytes: number;
  checkpoints: number;
  otherCommits: number;
  autovacuums: number;
  /** per table: [inserted, updated, deleted] */
  tables: Record<string, [number, number, number]>;
}

/**
 * Backends send their statistics at most once a second while busy, and an idle backend that sent them
 * less than a second ago waits PGSTAT_IDLE_INTERVAL (10 s in PostgreSQL 15) before sending the rest;
 * `pg_stat_force_next_flush()` reaches only the calling backend. So a reading is taken this long after
 * the last request, and again until two readings a second apart agree.
 */
const IDLE_FLUSH_MS = 11_000;

export interface StatsReader {
  /** the counters once every backend has sent what it counted */
  settled(): Promise<Counters>;
  close(): Promise<void>;
}

/** Reads the counters of `databaseUrl`'s database; `clusterUrl` is another database on the same server. */
export function statsReader(clusterUrl: string, databaseUrl: string): StatsReader {
  const cluster = postgres(clusterUrl, { max: 1, onnotice: () => {} });
  const own = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  const dbName = new URL(databaseUrl).pathname.slice(1);
  // Each reading commits one transaction in each database; subtracted so the bench counts only the server's.
  let readings = 0;
  const read = async (): Promise<Counters> => {
    const [[c], tables] = await Promise.all([
      cluster`
        select
          (select xact_commit from pg_stat_database where datname = ${dbName})::float8 as commits,
          (select xact_rollback from pg_stat_database where datname = ${dbName})::float8 as rollbacks,
          (select coalesce(sum(xact_commit), 0) from pg_stat_database where datname <> ${dbName})::float8 as other,
          pg_snapshot_xmax(pg_current_snapshot())::text::float8 as xids,
          w.wal_records::float8 as "walRecords", w.wal_fpi::float8 as "walFpi", w.wal_bytes::float8 as "walBytes",
          (select checkpoints_timed + checkpoints_req from pg_stat_bgwriter)::float8 as checkpoints
        from pg_stat_wal w`,
      own`
        select relname, n_tup_ins::float8 as ins, n_tup_upd::float8 as upd, n_tup_del::float8 as del,
          (autovacuum_count + autoanalyze_count)::float8 as auto
        from pg_stat_user_tables`,
    ]);
    readings++;
    return {
      commits: c.commits - readings,
      rollbacks: c.rollbacks,
      xids: c.xids,
      walRecords: c.walRecords,
      walFpi: c.walFpi,
      walBytes: c.walBytes,
      checkpoints: c.checkpoints,
      otherCommits: c.other - readings,
      autovacuums: tables.reduce((n, t) => n + t.auto, 0),
      tables: Object.fromEntries(tables.map((t) => [t.relname, [t.ins, t.upd, t.del]])),
    };
  };
  return {
    async settled() {
      await new Promise((r) => setTimeout(r, IDLE_FLUSH_MS));
      let last = await read();
      for (let i = 0; i < 10; i++) {
        await new Promise((r) => setTimeout(r, 1000));
        const next = await read();
        // the idle server's jobs commit read-only transactions every second: rows and writing transactions settle
        if (next.xids === last.xids && rowsWritten(next) === rowsWritten(last)) return next;
        last = next;
      }
      return last;
    },
    async close() {
      await Promise.all([cluster.end({ timeout: 5 }), own.end({ timeout: 5 })]);
    },
  };
}

export function rowsWritten(c: Counters): number {
  return Object.values(c.tables).reduce((n, [i, u, d]) => n + i + u + d, 0);
}

/** after − before, field by field (tables that appeared meanwhile count from zero). */
export function difference(after: Counters, before: Counters): Counters {
  const tables: Counters['tables'] = {};
  for (const [name, [i, u, d]] of Object.entries(after.tables)) {
    const [bi, bu, bd] = before.tables[name] ?? [0, 0, 0];
    if (i - bi || u - bu || d - bd) tables[name] = [i - bi, u - bu, d - bd];
  }
  return {
    commits: after.commits - before.commits,
    rollbacks: after.rollbacks - before.rollbacks,
    xids: after.xids - before.xids,
    walRecords: after.walRecords - before.walRecords,
    walFpi: after.walFpi - before.walFpi,
    walBytes: after.walBytes - before.walBytes,
    checkpoints: after.checkpoints - before.checkpoints,
    otherCommits: after.otherCommits - before.otherCommits,
    autovacuums: after.autovacuums - before.autovacuums,
    tables,
  };
}

/**
 * Turns autovacuum on or off for every table of `databaseUrl`'s database. While operations are counted
 * it is off: a vacuum that starts in one operation's window would add the WAL of cleaning up after the
 * operations before it.
 */
export async function setAutovacuum(databaseUrl: string, enabled: boolean): Promise<void> {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  try {
    const tables = await sql`
      select quote_ident(schemaname) || '.' || quote_ident(tablename) as name
      from pg_tables where schemaname not in ('pg_catalog', 'information_schema')`;
    for (const t of tables) await sql.unsafe(`alter table ${t.name} set (autovacuum_enabled = ${enabled})`);
  } finally {
    await sql.end({ timeout: 5 });
  }
}
