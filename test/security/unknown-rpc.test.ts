import http2 from 'node:http2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server';

const UNKNOWN = '/portcullis.nope.v1.X/Y';

/**
 * A method the server does not have answers `unimplemented` in the caller's protocol. Over HTTP/2 gRPC
 * the status must arrive in a trailers-only response (one HEADERS frame that ends the stream): headers
 * followed by an empty end of stream read as a stream closed without trailers (code Internal).
 */
describe('an unknown method is unimplemented in every protocol', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.stop());

  it('gRPC over HTTP/2: a trailers-only response with grpc-status 12', async () => {
    const session = http2.connect(server.url);
    try {
      const answer = await new Promise<{ headers: http2.IncomingHttpHeaders; endedWithHeaders: boolean }>(
        (resolve, reject) => {
          const req = session.request({
            ':method': 'POST',
            ':path': UNKNOWN,
            'content-type': 'application/grpc',
            te: 'trailers',
          });
          req.on('response', (headers, flags) => resolve({ headers, endedWithHeaders: (flags & 0x1) === 0x1 }));
          req.on('error', reject);
          req.end(Buffer.from([0, 0, 0, 0, 0]));
        },
      );
      expect(answer.headers[':status']).toBe(200);
      expect(answer.headers['content-type']).toBe('application/grpc');
      expect(answer.headers['grpc-status']).toBe('12');
      expect(answer.endedWithHeaders).toBe(true);
    } finally {
      session.close();
    }
  });

  it('gRPC-web: grpc-status 12 in the headers', async () => {
    const res = await server.fetch(UNKNOWN, {
      method: 'POST',
      headers: { 'content-type': 'application/grpc-web+proto', 'x-grpc-web': '1' },
      body: new Uint8Array(5),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('grpc-status')).toBe('12');
  });

  it('Connect JSON: 404 with code unimplemented', async () => {
    const res = await server.fetch(UNKNOWN, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ code: 'unimplemented' });
  });
});
