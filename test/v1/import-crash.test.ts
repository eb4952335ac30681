import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../src/crypto/passwords/index';
import { freshDatabase } from '../helpers/database';

/**
 * Kills the server with SIGKILL in the middle of a large import and restarts it on the same data:
 * every organization must be either complete or absent.
 */
const ORGS = 12;
const USERS = 1000;
/** users per organization with a plain password: argon2id hashing makes the import last seconds */
const PLAIN = 30;

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

describe('import crash safety', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pc-v1-crash-'));
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  let port: number;
  let child: ChildProcess | undefined;
  const run = Date.now();
  const orgIds = Array.from({ length: ORGS }, (_, i) => `77${i}${run}`);

  const startServer = async () => {
    child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'start'], {
      cwd: path.resolve(__dirname, '../..'),
      env: {
        ...process.env,
        PORT: String(port),
        PORTCULLIS_HOST: '127.0.0.1',
        PORTCULLIS_DATA_DIR: dataDir,
        PORTCULLIS_ADMIN_PAT_FILE: path.join(dataDir, 'admin.pat'),
        PORTCULLIS_WORKERS: '1',
        PORTCULLIS_ADMIN_PASSWORD: 'Admin-Passw0rd!',
        PORTCULLIS_LOG_LEVEL: 'warn',
        ...(db.url ? { DATABASE_URL: db.url } : { DATABASE_URL: '' }),
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    for (let i = 0; i < 600; i++) {
      const ok = await fetch(`http://127.0.0.1:${port}/readyz`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('server did not become ready');
  };
  const api = (p: string, body: unknown) =>
    fetch(`http://127.0.0.1:${port}${p}`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Authorization: `Bearer ${fs.readFileSync(path.join(dataDir, 'admin.pat'), 'utf8').trim()}`,
      },
      body: JSON.stringify(body),
    });

  beforeAll(async () => {
    db = await freshDatabase();
    port = await freePort();
  });
  afterAll(async () => {
    child?.kill('SIGKILL');
    await db?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('leaves every organization complete or untouched after kill -9', { timeout: 240_000 }, async () => {
    await startServer();
    const hash = await hashPassword('Imported-Passw0rd');
    const body = {
      dataOrgs: {
        orgs: orgIds.map((orgId) => ({
          orgId,
          org: { name: `Crash ${orgId}` },
          humanUsers: Array.from({ length: USERS }, (_, u) => ({
            userId: `${orgId}${u}`,
            user: {
              userName: `c${u}x${orgId}`,
              email: { email: `c${u}x${orgId}@example.com`, isEmailVerified: true },
              ...(u < PLAIN ? { password: 'Plain-Passw0rd!' } : { hashedPassword: { value: hash } }),
            },
          })),
        })),
      },
    };
    const importing = api('/admin/v1/import', body).catch(() => undefined);
    if (db.url) {
      // PostgreSQL: kill as soon as the first organization has committed, while the next one is being written.
      const sql = postgres(db.url, { max: 1, onnotice: () => {} });
      for (let i = 0; i < 3000; i++) {
        const [{ n }] = await sql`select count(*)::int as n from orgs where id in ${sql(orgIds)}`;
        if (n > 0) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      await sql.end();
    } else {
      // PGlite holds its data folder alone, so nothing can watch the progress: kill early. Hashing
      // 12 × 30 passwords alone takes longer than this, so the import cannot have finished.
      await new Promise((r) => setTimeout(r, 1500));
    }
    child!.kill('SIGKILL');
    await importing;
    await new Promise((r) => child!.once('exit', r));

    await startServer();
    const complete: string[] = [];
    for (const orgId of orgIds) {
      const orgEvents = (await (
        await api('/admin/v1/events/_search', { aggregateId: orgId, eventTypes: ['org.added'] })
      ).json()) as any;
      const users = (await (
        await api('/admin/v1/events/_search', { resourceOwner: orgId, eventTypes: ['user.human.added'] })
      ).json()) as any;
      const hasOrg = orgEvents.events.length === 1;
      expect(users.events.length, `organization ${orgId}`).toBe(hasOrg ? USERS : 0);
      if (hasOrg) complete.push(orgId);
    }
    // The kill landed in the middle: some organizations made it, others did not.
    expect(complete.length).toBeLessThan(ORGS);
    if (db.url) expect(complete.length).toBeGreaterThan(0);

    // Sending the same body again finishes the job without duplicates.
    const again = (await (await api('/admin/v1/import', body)).json()) as any;
    expect(again.success.orgs.map((o: any) => o.humanUserIds.length)).toEqual(orgIds.map(() => USERS));
    expect(again.errors.map((e: any) => e.id).sort()).toEqual([...complete].sort());
    child!.kill('SIGTERM');
    await new Promise((r) => child!.once('exit', r));
    child = undefined;
  });
});
