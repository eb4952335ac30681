import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onPostgres } from '../helpers/database';
import { waitFor } from '../helpers/process';
import { startTestServer, type TestServer } from '../helpers/server';
import { withServerBehindProxy } from '../helpers/tcp-proxy';

describe('health and metrics', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.stop());

  it('answers /healthz and /readyz with 200 while the database is there', async () => {
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready' });
  });

  it('exposes Prometheus metrics per route and per RPC', async () => {
    await server.fetch('/portcullis.instance.v2.InstanceService/GetInstance', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{}',
    });
    const res = await fetch(`${server.url}/metrics`);
    expect(res.headers.get('content-type')).toMatch(/text\/plain/);
    const text = await res.text();
    expect(text).toMatch(
      new RegExp(
        'portcullis_rpc_duration_seconds_count\\{procedure="portcullis.instance.v2.InstanceService\\/GetInstance",' +
          'code="ok"\\} \\d+',
      ),
    );
    expect(text).toMatch(
      /portcullis_http_request_duration_seconds_count\{route="\/readyz",method="GET",status="200"\} \d+/,
    );
    expect(text).toMatch(/portcullis_database_pool_max_connections \d+/);
  });

  it('answers unknown paths with a JSON 404 and a request id', async () => {
    const res = await fetch(`${server.url}/no/such/thing`);
    expect(res.status).toBe(404);
    expect(res.headers.get('x-request-id')).toBeTruthy();
    expect((await res.json()).error).toBe('not_found');
  });
});

describe.skipIf(!onPostgres)('losing the database', () => {
  it('turns /readyz to 503 while PostgreSQL is gone and recovers by itself', async () => {
    await withServerBehindProxy(async (server, proxy) => {
      expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
      await proxy.cut();
      await waitFor(async () => (await fetch(`${server.url}/readyz`)).status === 503, 15_000, '/readyz 503');
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
      const rpc = await server.fetch('/portcullis.instance.v2.InstanceService/GetInstance', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: '{}',
      });
      expect(rpc.status).toBeLessThan(600);
      expect(rpc.status).not.toBe(200);
      await proxy.restore();
      await waitFor(async () => (await fetch(`${server.url}/readyz`)).status === 200, 30_000, '/readyz 200 again');
      const again = await server.fetch('/portcullis.instance.v2.InstanceService/GetInstance', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: '{}',
      });
      expect(again.status).toBe(200);
    });
  });
});
