import http from 'node:http';
import http2 from 'node:http2';
import net from 'node:net';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server';

/**
 * Unary Connect bodies of up to 64 KiB are read in one piece before Connect parses them
 * (src/api/node-adapter.ts); everything else streams through connect-node. Both paths must answer the
 * same, and no body — compressed, large, malformed, cut short or lying about its length — may get a
 * 5xx, hang the call or stop the server from serving the next one.
 */
const UPDATE = '/portcullis.instance.v2.InstanceService/UpdateInstance';
const GET = '/portcullis.instance.v2.InstanceService/GetInstance';

describe('unary request bodies', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.stop();
  });

  const post = (path: string, body: BodyInit, headers: Record<string, string> = {}) =>
    server.fetch(path, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });

  async function instanceName(): Promise<string> {
    const res = await post(GET, '{}');
    expect(res.status).toBe(200);
    return (await res.json()).instance.name;
  }

  it('reads a small JSON body, with or without a charset, and writes what it says', async () => {
    expect((await post(UPDATE, JSON.stringify({ instanceName: 'Small body' }))).status).toBe(200);
    expect(await instanceName()).toBe('Small body');
    const res = await post(UPDATE, JSON.stringify({ instanceName: 'With charset' }), {
      'content-type': 'application/json; charset=utf-8',
    });
    expect(res.status).toBe(200);
    expect(await instanceName()).toBe('With charset');
  });

  it('still decompresses a gzip body (Content-Encoding) and still refuses a bomb beyond the read limit', async () => {
    const gz = zlib.gzipSync(JSON.stringify({ instanceName: 'Compressed body' }));
    expect((await post(UPDATE, gz, { 'content-encoding': 'gzip' })).status).toBe(200);
    expect(await instanceName()).toBe('Compressed body');
    // 5 MiB of JSON whitespace compresses to a few KiB: the small compressed length must not let it past 4 MiB
    const bomb = zlib.gzipSync(
      Buffer.concat([Buffer.from('{"instanceName":"Bomb"'), Buffer.alloc(5 << 20, ' '), Buffer.from('}')]),
    );
    expect(bomb.length).toBeLessThan(64 * 1024);
    const res = await post(UPDATE, bomb, { 'content-encoding': 'gzip' });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(await instanceName()).toBe('Compressed body');
  });

  it('streams a body above 64 KiB through Connect, and refuses one above the 4 MiB read limit with a 4xx', async () => {
    const padded = `{"instanceName":"Large body"${' '.repeat(100_000)}}`;
    expect((await post(UPDATE, padded)).status).toBe(200);
    expect(await instanceName()).toBe('Large body');
    const huge = `{"instanceName":"Huge body"${' '.repeat(5 << 20)}}`;
    const res = await post(UPDATE, huge);
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(await instanceName()).toBe('Large body');
  });

  it('answers malformed JSON and a binary body sent as JSON with invalid_argument, not a 5xx', async () => {
    for (const body of ['{"instanceName":', '\u0000\u0001\u0002', '[]', '{"instanceName": 7}']) {
      const res = await post(UPDATE, body);
      expect(res.status, body).toBe(400);
      expect((await res.json()).code).toBe('invalid_argument');
    }
    expect(await instanceName()).toBe('Large body');
  });

  it('authenticates a pre-read call like any other: no token, no write', async () => {
    const res = await server.fetch(UPDATE, {
      method: 'POST',
      token: null,
      body: JSON.stringify({ instanceName: 'Anonymous' }),
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(401);
    expect(await instanceName()).toBe('Large body');
  });

  it('survives an HTTP/1.1 body cut short: nothing is written and the next call is served', async () => {
    const body = JSON.stringify({ instanceName: 'Cut short' });
    await new Promise<void>((resolve) => {
      const socket = net.connect(server.port, '127.0.0.1', () => {
        socket.write(
          `POST ${UPDATE} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${server.pat}\r\n` +
            `Content-Type: application/json\r\nContent-Length: ${body.length + 10}\r\n\r\n${body}`,
        );
        setTimeout(() => socket.destroy(), 200);
      });
      socket.on('close', () => resolve());
      socket.on('error', () => {});
    });
    expect(await instanceName()).toBe('Large body');
  });

  it('answers an HTTP/2 body short of its Content-Length with a 4xx or a reset, never a write', async () => {
    const session = http2.connect(server.url);
    try {
      const outcome = await new Promise<string>((resolve) => {
        const req = session.request({
          ':method': 'POST',
          ':path': UPDATE,
          'content-type': 'application/json',
          'content-length': '200',
          authorization: `Bearer ${server.pat}`,
        });
        let status = 0;
        req.on('response', (h) => {
          status = Number(h[':status']);
        });
        req.on('data', () => {});
        req.on('end', () => resolve(`status ${status}`));
        req.on('error', (e) => resolve(`reset ${e.message}`));
        req.end(JSON.stringify({ instanceName: 'Lying length' }));
      });
      if (outcome.startsWith('status')) {
        const status = Number(outcome.slice(7));
        expect(status).toBeGreaterThanOrEqual(400);
        expect(status).toBeLessThan(500);
      }
    } finally {
      session.close();
    }
    expect(await instanceName()).toBe('Large body');
  });

  it('keeps gRPC (enveloped, HTTP/2) on the streaming path', async () => {
    const { InstanceService } = await import('../../gen/portcullis/instance/v2/instance_service_pb');
    const client = server.client(InstanceService, { protocol: 'grpc' });
    await client.updateInstance({ instanceName: 'Over gRPC' });
    expect(await instanceName()).toBe('Over gRPC');
  });

  it('serves many keep-alive calls on one HTTP/1.1 connection', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      for (let i = 0; i < 20; i++) {
        const body = JSON.stringify({ instanceName: `Keep-alive ${i}` });
        const status = await new Promise<number>((resolve, reject) => {
          const req = http.request(
            {
              host: '127.0.0.1',
              port: server.port,
              method: 'POST',
              path: UPDATE,
              agent,
              headers: {
                'content-type': 'application/json',
                'content-length': Buffer.byteLength(body),
                authorization: `Bearer ${server.pat}`,
              },
            },
            (res) => {
              res.resume();
              res.on('end', () => resolve(res.statusCode ?? 0));
            },
          );
          req.on('error', reject);
          req.end(body);
        });
        expect(status).toBe(200);
      }
    } finally {
      agent.destroy();
    }
    expect(await instanceName()).toBe('Keep-alive 19');
  });
});
