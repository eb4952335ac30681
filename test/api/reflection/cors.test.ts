import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server';

// Browsers call the v2 API (Connect JSON or gRPC-web) only from origins in PORTCULLIS_CORS_ORIGINS.
describe('CORS for browser clients', () => {
  let server: TestServer;
  const allowed = 'https://console.example.com';
  const path = '/portcullis.instance.v2.InstanceService/GetInstance';

  beforeAll(async () => {
    server = await startTestServer({ PORTCULLIS_CORS_ORIGINS: `${allowed}, https://other-allowed.example.com` });
  });
  afterAll(() => server?.stop());

  const preflight = (origin: string, requestHeaders: string) =>
    server.fetch(path, {
      method: 'OPTIONS',
      token: null,
      headers: {
        Origin: origin,
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': requestHeaders,
      },
    });

  it('answers a Connect preflight from an allowed origin with the CORS headers', async () => {
    const res = await preflight(allowed, 'authorization,content-type,connect-protocol-version,dpop');
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe(allowed);
    expect(res.headers.get('access-control-allow-methods')).toContain('POST');
    const headers = res.headers.get('access-control-allow-headers')!.toLowerCase();
    // dpop: a browser client presents a DPoP-bound token with its proof (RFC 9449 §7)
    for (const h of ['authorization', 'content-type', 'connect-protocol-version', 'dpop'])
      expect(headers.split(/,\s*/)).toContain(h);
  });

  it('answers a gRPC-web preflight from an allowed origin', async () => {
    const res = await preflight(allowed, 'authorization,content-type,x-grpc-web,x-user-agent');
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe(allowed);
    const headers = res.headers.get('access-control-allow-headers')!.toLowerCase();
    for (const h of ['x-grpc-web', 'x-user-agent']) expect(headers).toContain(h);
  });

  it('gives the actual call from an allowed origin the headers a browser needs to read it', async () => {
    const res = await server.fetch(path, {
      method: 'POST',
      headers: { Origin: allowed, 'Content-Type': 'application/json' },
      body: '{}',
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe(allowed);
    expect(res.headers.get('access-control-expose-headers')?.toLowerCase()).toContain('grpc-status');
  });

  it('gives another origin no CORS headers, so the browser blocks it', async () => {
    const res = await preflight('https://evil.example.com', 'authorization,content-type,connect-protocol-version');
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    expect(res.headers.get('access-control-allow-headers')).toBeNull();
    const call = await server.fetch(path, {
      method: 'POST',
      headers: { Origin: 'https://evil.example.com', 'Content-Type': 'application/json' },
      body: '{}',
    });
    expect(call.headers.get('access-control-allow-origin')).toBeNull();
  });
});
