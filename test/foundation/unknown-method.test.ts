import http2 from 'node:http2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server';

describe("an unknown method answers in the caller's protocol", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.stop());

  it('gRPC over h2c: grpc-status 12 (unimplemented) with application/grpc', async () => {
    const session = http2.connect(server.url);
    try {
      const headers = await new Promise<http2.IncomingHttpHeaders>((resolve, reject) => {
        const req = session.request({
          ':method': 'POST',
          ':path': '/portcullis.nothing.v2.NoService/Nothing',
          'content-type': 'application/grpc',
          te: 'trailers',
        });
        req.on('response', resolve);
        req.on('error', reject);
        req.end(Buffer.from([0, 0, 0, 0, 0]));
      });
      expect(headers['content-type']).toBe('application/grpc');
      expect(headers['grpc-status']).toBe('12');
    } finally {
      session.close();
    }
  });

  it('Connect: HTTP 404 with the Connect error code unimplemented; gRPC-web likewise in its headers', async () => {
    const res = await fetch(`${server.url}/portcullis.user.v2.UserService/NoSuchMethod`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ code: 'unimplemented' });
    const web = await fetch(`${server.url}/portcullis.user.v2.UserService/NoSuchMethod`, {
      method: 'POST',
      headers: { 'content-type': 'application/grpc-web+proto' },
      body: new Uint8Array(5),
    });
    expect(web.headers.get('grpc-status')).toBe('12');
  });
});
