import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config';
import { createLogger } from '../../src/log';
import { start } from '../../src/main';
import { freshDatabase, onPostgres } from '../helpers/database';
import { freePort, runCli, waitFor } from '../helpers/process';

const getInstance = (url: string, token: string) =>
  fetch(`${url}/portcullis.instance.v2.InstanceService/GetInstance`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
    body: '{}',
  });

describe('first-start bootstrap', () => {
  it('writes the admin PAT (mode 0600) and never bootstraps again after a restart', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pc-boot-'));
    const db = await freshDatabase();
    const env = {
      PORT: '0',
      PORTCULLIS_HOST: '127.0.0.1',
      PORTCULLIS_DATA_DIR: dataDir,
      PORTCULLIS_LOG_LEVEL: 'silent',
      ...(db.url ? { DATABASE_URL: db.url } : {}),
    };
    const log = createLogger('silent');
    const first = await start(loadConfig(env), { log });
    try {
      expect(first.bootstrap.created).toBe(true);
      expect(first.bootstrap.generatedPassword).toBe(true);
      // PGlite keeps it in the data folder, PostgreSQL in the database's folder inside it
      const patFile = first.config.adminPatFile!;
      expect(patFile.startsWith(dataDir)).toBe(true);
      expect(fs.statSync(patFile).mode & 0o777).toBe(0o600);
      const pat = fs.readFileSync(patFile, 'utf8').trim();
      expect(pat).toBe(first.bootstrap.pat);
      expect(pat.length).toBeGreaterThanOrEqual(40);
      const res = await getInstance(first.server!.url, pat);
      expect(res.status).toBe(200);
    } finally {
      await first.stop();
    }
    const second = await start(loadConfig(env), { log });
    try {
      expect(second.bootstrap.created).toBe(false);
      expect(second.bootstrap.instanceId).toBe(first.bootstrap.instanceId);
      const pat = fs.readFileSync(second.config.adminPatFile!, 'utf8').trim();
      const res = await getInstance(second.server!.url, pat);
      expect(res.status).toBe(200);
      expect((await res.json()).instance.id).toBe(first.bootstrap.instanceId);
    } finally {
      await second.stop();
      await db.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);

  it.skipIf(!onPostgres)(
    'two processes starting at once on one empty PostgreSQL create one instance, one admin, one PAT',
    async () => {
      const db = await freshDatabase();
      const dirs = [0, 1].map(() => fs.mkdtempSync(path.join(os.tmpdir(), 'pc-race-')));
      const masterKey = randomBytes(32).toString('base64');
      const ports = [await freePort(), await freePort()];
      const procs = [0, 1].map((i) =>
        runCli(['start'], {
          DATABASE_URL: db.url,
          PORT: String(ports[i]),
          PORTCULLIS_HOST: '127.0.0.1',
          PORTCULLIS_DATA_DIR: dirs[i],
          PORTCULLIS_ADMIN_PAT_FILE: path.join(dirs[i], 'admin.pat'),
          // replicas of one database share its master key
          PORTCULLIS_MASTER_KEY: masterKey,
          PORTCULLIS_WORKERS: '1',
        }),
      );
      try {
        for (const port of ports) {
          await waitFor(
            async () => (await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200,
            60_000,
            `replica on ${port}`,
          );
        }
        const sql = postgres(db.url!, { max: 1, onnotice: () => {} });
        const [{ n: instances }] = await sql`select count(*)::int as n from instances`;
        const [{ n: admins }] = await sql`select count(*)::int as n from users where username = 'admin'`;
        const [{ n: pats }] = await sql`select count(*)::int as n from personal_access_tokens`;
        const [{ n: added }] = await sql`select count(*)::int as n from events where event_type = 'instance.added'`;
        await sql.end();
        expect({ instances, admins, pats, added }).toEqual({ instances: 1, admins: 1, pats: 1, added: 1 });
        const written = dirs.filter((d) => fs.existsSync(path.join(d, 'admin.pat')));
        expect(written).toHaveLength(1);
        expect(procs.map((p) => p.stdout()).filter((o) => o.includes('First start'))).toHaveLength(1);
      } finally {
        for (const p of procs) p.child.kill('SIGTERM');
        await Promise.all(procs.map((p) => p.exited));
        await db.drop();
        for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
      }
    },
  );
});
