import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import http2 from 'node:http2';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onPostgres } from '../helpers/database';
import { waitFor } from '../helpers/process';
import { startTestServer, type TestServer } from '../helpers/server';
import { pidsLogging, withWorkers } from '../helpers/workers';

const GET_INSTANCE = '/portcullis.instance.v2.InstanceService/GetInstance';

describe('TLS', () => {
  let server: TestServer;
  let dir: string;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pc-tls-'));
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:P-256',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
        '-keyout',
        path.join(dir, 'key.pem'),
        '-out',
        path.join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    server = await startTestServer({
      PORTCULLIS_TLS_CERT: path.join(dir, 'cert.pem'),
      PORTCULLIS_TLS_KEY: path.join(dir, 'key.pem'),
    });
  });
  afterAll(async () => {
    await server?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('serves HTTP/2 (ALPN h2) and HTTP/1.1 on the same TLS port', async () => {
    const ca = fs.readFileSync(path.join(dir, 'cert.pem'));
    const session = http2.connect(`https://127.0.0.1:${server.port}`, { ca });
    try {
      const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = session.request({
          ':method': 'POST',
          ':path': GET_INSTANCE,
          'content-type': 'application/json',
          authorization: `Bearer ${server.pat}`,
        });
        let body = '';
        let status = 0;
        req.on('response', (h) => (status = Number(h[':status'])));
        req.on('data', (d) => (body += d));
        req.on('end', () => resolve({ status, body }));
        req.on('error', reject);
        req.end('{}');
      });
      expect(status).toBe(200);
      expect(JSON.parse(body).instance.id).toBe(server.app.bootstrap.instanceId);
    } finally {
      session.close();
    }
    const https = await import('node:https');
    const status = await new Promise<number>((resolve, reject) => {
      https
        .get(`https://127.0.0.1:${server.port}/healthz`, { ca }, (res) => resolve(res.statusCode!))
        .on('error', reject);
    });
    expect(status).toBe(200);
  });
});

describe('request robustness', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.stop());

  it('answers malformed JSON to an RPC with invalid_argument, not a 5xx', async () => {
    const res = await server.fetch(GET_INSTANCE, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{not json',
    });
    expect(res.status).toBe(400);
    expect((await res.json()).code).toBe('invalid_argument');
  });

  it('answers a wrong content type with 415', async () => {
    const res = await server.fetch(GET_INSTANCE, {
      method: 'POST',
      headers: { 'Content-Type': 'text/plain' },
      body: '{}',
    });
    expect(res.status).toBe(415);
  });
});

describe.skipIf(!onPostgres)('worker processes', () => {
  it('serves from PORTCULLIS_WORKERS processes on one port and drains them all on SIGTERM', async () => {
    await withWorkers(async ({ port, pat, proc }) => {
      expect(proc.stdout()).toMatch(/2 workers, postgres/);
      await waitFor(
        async () => {
          // New connections (no keep-alive) are spread over the workers.
          const status = await new Promise<number>((resolve, reject) => {
            const req = http.request(
              {
                host: '127.0.0.1',
                port,
                method: 'POST',
                path: GET_INSTANCE,
                agent: false,
                headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${pat}` },
              },
              (res) => {
                res.resume();
                res.on('end', () => resolve(res.statusCode!));
              },
            );
            req.on('error', reject);
            req.end('{}');
          });
          expect(status).toBe(200);
          return pidsLogging(proc, /"path":"\/portcullis/).size >= 2;
        },
        30_000,
        'requests served by two workers',
      );
      proc.child.kill('SIGTERM');
      expect(await proc.exited).toBe(0);
    });
  }, 120_000);
});

describe('body limits', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ PORTCULLIS_BODY_LIMIT: '2mb' });
  });
  afterAll(() => server?.stop());

  it('refuses a body over 1 MB on ordinary routes with 413 and a JSON error', async () => {
    const res = await fetch(`${server.url}/oauth/v2/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: `grant_type=client_credentials&pad=${'x'.repeat(1024 * 1024 + 10)}`,
    });
    expect(res.status).toBe(413);
    expect((await res.json()).error).toBe('request_too_large');
  });

  it('lets the bulk import take up to PORTCULLIS_BODY_LIMIT and no more', async () => {
    // The server answers as soon as the declared length is over the limit; Node's client sees that
    // answer even though the server stops reading the rest of the body.
    const status = await new Promise<number>((resolve, reject) => {
      const body = Buffer.alloc(2 * 1024 * 1024 + 100, 'x');
      const req = http.request(
        {
          host: '127.0.0.1',
          port: server.port,
          method: 'POST',
          path: '/admin/v1/import',
          headers: {
            'Content-Type': 'application/json',
            'Content-Length': body.length,
            Authorization: `Bearer ${server.pat}`,
          },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode!);
        },
      );
      req.on('error', (err) => (req.destroyed ? undefined : reject(err)));
      req.end(body);
    });
    expect(status).toBe(413);
    const fits = await server.fetch('/admin/v1/import', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ pad: 'x'.repeat(1536 * 1024) }),
    });
    expect(fits.status).not.toBe(413);
  });
});
