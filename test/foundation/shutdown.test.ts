import fs from 'node:fs';
import http from 'node:http';
import { describe, expect, it } from 'vitest';
import { freshDatabase } from '../helpers/database';
import { freePort, runCli, waitFor } from '../helpers/process';

describe('graceful shutdown', () => {
  it('on SIGTERM finishes the request in flight, refuses new connections, then exits 0', async () => {
    const db = await freshDatabase();
    const port = await freePort();
    const proc = runCli(['start'], {
      PORT: String(port),
      PORTCULLIS_HOST: '127.0.0.1',
      PORTCULLIS_DATA_DIR: 'memory://',
      PORTCULLIS_WORKERS: '1',
      PORTCULLIS_ADMIN_PAT_FILE: `/tmp/pc-shutdown-${port}.pat`,
      ...(db.url ? { DATABASE_URL: db.url } : {}),
    });
    try {
      await waitFor(
        async () => (await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200,
        60_000,
        'server ready',
      );
      // A request whose body is still arriving when SIGTERM comes.
      const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = http.request(
          {
            host: '127.0.0.1',
            port,
            method: 'POST',
            path: '/portcullis.instance.v2.InstanceService/GetInstance',
            headers: { 'Content-Type': 'application/json', 'Content-Length': '2' },
          },
          (res) => {
            let body = '';
            res.on('data', (d) => (body += d));
            res.on('end', () => resolve({ status: res.statusCode!, body }));
          },
        );
        req.on('error', reject);
        req.write('{');
        setTimeout(() => {
          proc.child.kill('SIGTERM');
          setTimeout(() => req.end('}'), 500);
        }, 200);
      });
      const res = await response;
      // The request completes normally (here: unauthenticated, since it carries no token).
      expect(res.status).toBe(401);
      expect(JSON.parse(res.body).code).toBe('unauthenticated');
      expect(await proc.exited).toBe(0);
      await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
    } finally {
      proc.child.kill('SIGKILL');
      await db.drop();
    }
  }, 120_000);

  it('on SIGTERM right after clients went away mid-request (a load generator stopping), exits 0 promptly', async () => {
    const db = await freshDatabase();
    const port = await freePort();
    const patFile = `/tmp/pc-shutdown-load-${port}.pat`;
    const proc = runCli(['start'], {
      PORT: String(port),
      PORTCULLIS_HOST: '127.0.0.1',
      PORTCULLIS_DATA_DIR: 'memory://',
      PORTCULLIS_WORKERS: '1',
      PORTCULLIS_ADMIN_PAT_FILE: patFile,
      ...(db.url ? { DATABASE_URL: db.url } : {}),
    });
    try {
      await waitFor(
        async () => (await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200,
        60_000,
        'server ready',
      );
      const pat = fs.readFileSync(patFile, 'utf8').trim();
      // 64 clients keep API calls going for a second, then drop their connections with calls
      // unanswered, as a load generator does when its time is up; SIGTERM follows at once.
      const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
      const call = () =>
        new Promise<void>((resolve) => {
          const req = http.request(
            {
              host: '127.0.0.1',
              port,
              agent,
              method: 'POST',
              path: '/portcullis.instance.v2.InstanceService/GetInstance',
              headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${pat}` },
            },
            (res) =>
              res
                .resume()
                .on('end', resolve)
                .on('error', () => resolve()),
          );
          req.on('error', () => resolve());
          req.end('{}');
        });
      const until = Date.now() + 1000;
      let answered = 0;
      await Promise.race([
        Promise.all(
          Array.from({ length: 64 }, async () => {
            while (Date.now() < until + 5000) {
              await call();
              answered++;
            }
          }),
        ),
        new Promise((r) => setTimeout(r, 1000)),
      ]);
      agent.destroy();
      const stopped = Date.now();
      proc.child.kill('SIGTERM');
      expect(await proc.exited).toBe(0);
      expect(answered).toBeGreaterThan(0);
      // Well inside PORTCULLIS_SHUTDOWN_TIMEOUT (30 s by default): nothing was left to drain.
      expect(Date.now() - stopped).toBeLessThan(10_000);
    } finally {
      proc.child.kill('SIGKILL');
      fs.rmSync(patFile, { force: true });
      await db.drop();
    }
  }, 120_000);
});
