import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config';
import { connectWithRetry, DatabaseUnreachableError } from '../../src/db/client';
import { createLogger } from '../../src/log';
import { start } from '../../src/main';
import { onPostgres } from '../helpers/database';
import { startPasswordServer } from '../helpers/pg-cluster';
import { freePort, runCli, waitFor } from '../helpers/process';

/**
 * The first contact with PostgreSQL: a database that does not exist is created when the role may, and
 * otherwise — like a wrong password or an unknown role — the start ends at once with a line that says
 * what to do, instead of retrying for PORTCULLIS_DB_CONNECT_TIMEOUT. And each database keeps its admin
 * PAT and master key in a folder of its own inside the data folder.
 */
describe.skipIf(!onPostgres)('PostgreSQL first contact', () => {
  const base = process.env.DATABASE_URL!;
  const made: string[] = [];
  const folders: string[] = [];
  const admin = () => postgres(base, { max: 1, onnotice: () => {} });
  beforeAll(async () => {
    // a role that may sign in but not create databases
    const sql = admin();
    await sql.unsafe('create role nocreate login').catch((err) => {
      if (err.code !== '42710') throw err; // there from an earlier run
    });
    await sql.end();
  });
  afterAll(async () => {
    const sql = admin();
    for (const name of made) await sql.unsafe(`drop database if exists ${name} with (force)`).catch(() => {});
    await sql.end();
    for (const dir of folders) fs.rmSync(dir, { recursive: true, force: true });
  });

  /** A database name nobody has created, dropped after the tests. */
  const newName = () => {
    const name = `pc_first_${randomBytes(5).toString('hex')}`;
    made.push(name);
    return name;
  };
  const urlOf = (database: string, user?: string, password?: string) => {
    const u = new URL(base);
    u.pathname = `/${database}`;
    if (user) u.username = user;
    if (password !== undefined) u.password = password;
    return u.toString();
  };
  const dataFolder = () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pc-first-'));
    folders.push(dir);
    return dir;
  };
  const exists = async (name: string) => {
    const sql = admin();
    const rows = await sql`select 1 from pg_database where datname = ${name}`;
    await sql.end();
    return rows.length === 1;
  };
  /** `portcullis start` that must fail: its exit code, what it wrote, and how long it took. */
  const failedStart = async (databaseUrl: string) => {
    const began = Date.now();
    const proc = runCli(['start'], {
      DATABASE_URL: databaseUrl,
      PORT: String(await freePort()),
      PORTCULLIS_HOST: '127.0.0.1',
      PORTCULLIS_DATA_DIR: dataFolder(),
      PORTCULLIS_WORKERS: '1',
      // retrying until this deadline would take two minutes
      PORTCULLIS_DB_CONNECT_TIMEOUT: '120',
    });
    const code = await proc.exited;
    return { code, stderr: proc.stderr(), seconds: (Date.now() - began) / 1000 };
  };

  it('creates a database that does not exist and serves on it', async () => {
    const name = newName();
    const dir = dataFolder();
    const port = await freePort();
    const proc = runCli(['start'], {
      DATABASE_URL: urlOf(name),
      PORT: String(port),
      PORTCULLIS_HOST: '127.0.0.1',
      PORTCULLIS_DATA_DIR: dir,
      PORTCULLIS_WORKERS: '1',
    });
    try {
      await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/readyz`)).ok, 90_000, 'server ready');
      expect(await exists(name)).toBe(true);
      const patFile = path.join(dir, `${new URL(base).hostname}-${new URL(base).port || 5432}-${name}`, 'admin.pat');
      expect(proc.stdout()).toContain(`Admin PAT:  ${patFile}`);
      expect(fs.readFileSync(patFile, 'utf8').trim().length).toBeGreaterThan(20);
    } finally {
      proc.child.kill('SIGTERM');
      await proc.exited;
    }
  }, 120_000);

  it('exits at once naming the database and the createdb command when the role may not create it', async () => {
    const name = newName();
    const { code, stderr, seconds } = await failedStart(urlOf(name, 'nocreate', ''));
    expect(code).not.toBe(0);
    expect(stderr).toContain(`database "${name}" does not exist`);
    expect(stderr).toContain(`createdb -h ${new URL(base).hostname}`);
    expect(stderr).toContain(`-O nocreate ${name}`);
    // not retried (the process itself, started through tsx, takes a while on a loaded machine)
    expect(seconds).toBeLessThan(60);
    expect(await exists(name)).toBe(false);
  }, 60_000);

  it('exits at once on a role that does not exist', async () => {
    const { code, stderr, seconds } = await failedStart(urlOf(newName(), 'no_such_role', ''));
    expect(code).not.toBe(0);
    expect(stderr).toMatch(/refused role "no_such_role": role "no_such_role" does not exist/);
    expect(seconds).toBeLessThan(60);
  }, 60_000);

  it('exits at once on a wrong password', async () => {
    const server = await startPasswordServer('right-password');
    try {
      const url = `postgres://postgres:wrong-password@127.0.0.1:${server.port}/portcullis`;
      const { code, stderr, seconds } = await failedStart(url);
      expect(code).not.toBe(0);
      expect(stderr).toContain('refused the password of role "postgres"');
      expect(stderr).not.toContain('wrong-password');
      expect(seconds).toBeLessThan(60);
    } finally {
      await server.stop();
    }
  }, 120_000);

  it('gives up on a permanent error within two seconds instead of retrying it', async () => {
    const name = newName();
    for (const url of [urlOf(name, 'nocreate', ''), urlOf(name, 'no_such_role', '')]) {
      const began = Date.now();
      const attempt = connectWithRetry({
        databaseUrl: url,
        dataDir: 'memory://',
        queryTimeoutMs: 10_000,
        timeoutMs: 30_000,
        createMissing: true,
      });
      await expect(attempt).rejects.toBeInstanceOf(DatabaseUnreachableError);
      expect(Date.now() - began).toBeLessThan(2000);
    }
  });

  /** An in-process server on `databaseUrl` (PGlite when undefined) with the data folder `dir`. */
  const serve = (dir: string, databaseUrl?: string) =>
    start(
      loadConfig({
        PORT: '0',
        PORTCULLIS_HOST: '127.0.0.1',
        PORTCULLIS_DATA_DIR: dir,
        PORTCULLIS_LOG_LEVEL: 'silent',
        PORTCULLIS_WORKERS: '1',
        ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
      }),
      { log: createLogger('silent') },
    );
  /** The signing keys, made (and sealed under the master key) by the first JWKS request. */
  const jwks = async (url: string) => (await (await fetch(`${url}/oauth/v2/keys`)).json()).keys as unknown[];

  it('keeps the admin PAT and master key of each database in a folder of its own', async () => {
    const dir = dataFolder();
    const embedded = await serve(dir);
    try {
      expect((await jwks(embedded.server.url)).length).toBeGreaterThan(0);
    } finally {
      await embedded.stop();
    }
    const firstPat = fs.readFileSync(path.join(dir, 'admin.pat'), 'utf8');
    const firstKey = fs.readFileSync(path.join(dir, 'master.key'), 'utf8');
    const [one, two] = [newName(), newName()];
    for (const name of [one, two]) {
      const app = await serve(dir, urlOf(name));
      try {
        expect(app.bootstrap.created).toBe(true);
        expect((await jwks(app.server.url)).length).toBeGreaterThan(0);
        expect(path.dirname(app.config.adminPatFile!)).toBe(app.config.databaseFolder);
        expect(path.dirname(app.config.adminPatFile!)).not.toBe(dir);
      } finally {
        await app.stop();
      }
    }
    // the embedded database's files are untouched; each PostgreSQL database has a PAT and key of its own
    expect(fs.readFileSync(path.join(dir, 'admin.pat'), 'utf8')).toBe(firstPat);
    expect(fs.readFileSync(path.join(dir, 'master.key'), 'utf8')).toBe(firstKey);
    const host = `${new URL(base).hostname}-${new URL(base).port || 5432}`;
    const pats = [one, two].map((name) => fs.readFileSync(path.join(dir, `${host}-${name}`, 'admin.pat'), 'utf8'));
    const keys = [one, two].map((name) => fs.readFileSync(path.join(dir, `${host}-${name}`, 'master.key'), 'utf8'));
    expect(new Set([firstPat, ...pats]).size).toBe(3);
    expect(new Set([firstKey, ...keys]).size).toBe(3);
  }, 180_000);

  it('keeps using the master key and PAT an earlier version kept in the data folder itself', async () => {
    const dir = dataFolder();
    const name = newName();
    const first = await serve(dir, urlOf(name));
    const own = first.config.databaseFolder!;
    try {
      expect((await jwks(first.server.url)).length).toBeGreaterThan(0);
    } finally {
      await first.stop();
    }
    // the layout before per-database folders: the files in the data folder itself
    for (const file of ['admin.pat', 'master.key']) fs.renameSync(path.join(own, file), path.join(dir, file));
    fs.rmdirSync(own);
    const again = await serve(dir, urlOf(name));
    try {
      expect(again.bootstrap.created).toBe(false);
      expect(again.config.databaseFolder).toBe(dir);
      expect(again.config.adminPatFile).toBe(path.join(dir, 'admin.pat'));
      const pat = fs.readFileSync(path.join(dir, 'admin.pat'), 'utf8').trim();
      const res = await fetch(`${again.server.url}/portcullis.instance.v2.InstanceService/GetInstance`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${pat}` },
        body: '{}',
      });
      expect(res.status).toBe(200);
      // the sealed signing keys still open: the JWKS is the one published before
      expect((await jwks(again.server.url)).length).toBeGreaterThan(0);
      expect(fs.existsSync(path.join(own, 'master.key'))).toBe(false);
    } finally {
      await again.stop();
    }
    // without any key that opens them, the start refuses rather than seal new data under a new key
    fs.rmSync(path.join(dir, 'master.key'));
    await expect(serve(dir, urlOf(name))).rejects.toThrow(/no master\.key in .* opens/);
    expect(fs.existsSync(path.join(own, 'master.key'))).toBe(false);
  }, 180_000);
});
