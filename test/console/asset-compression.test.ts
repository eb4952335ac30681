import http from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server';

/** A raw GET (fetch would decompress): the status, the headers and the bytes as sent. */
function rawGet(url: string, acceptEncoding?: string) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
    const req = http.get(url, { headers: acceptEncoding ? { 'accept-encoding': acceptEncoding } : {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
  });
}

/** What a browser downloads for the console and the login: compressed when it says it can decompress. */
describe('static assets are sent compressed', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.stop());

  it("the console's script: brotli for browsers that take it, gzip for others, plain when asked for none", async () => {
    const url = `${server.url}/ui/console/assets/console.js`;
    const plain = await rawGet(url);
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers.vary).toMatch(/Accept-Encoding/i);

    const br = await rawGet(url, 'gzip, deflate, br, zstd');
    expect(br.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(br.body).equals(plain.body)).toBe(true);
    // what the browser receives is a fraction of the script
    expect(br.body.length).toBeLessThan(plain.body.length / 3);

    const gz = await rawGet(url, 'gzip');
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.body).equals(plain.body)).toBe(true);

    const refused = await rawGet(url, 'br;q=0, gzip;q=0');
    expect(refused.headers['content-encoding']).toBeUndefined();
  });

  it("the console's stylesheet and the login's stylesheet and WebAuthn script are compressed too", async () => {
    for (const path of ['/ui/console/assets/console.css', '/ui/login/style.css', '/ui/login/webauthn.js']) {
      const res = await rawGet(`${server.url}${path}`, 'gzip, br');
      expect(res.status, path).toBe(200);
      expect(res.headers['content-encoding'], path).toBe('br');
      expect(brotliDecompressSync(res.body).length, path).toBeGreaterThan(res.body.length);
    }
  });
});
