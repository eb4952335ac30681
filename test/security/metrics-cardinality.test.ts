import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server';

describe('metrics cannot be inflated', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.stop());

  const series = async () => {
    const text = await (await fetch(`${server.url}/metrics`)).text();
    return text.split('\n').filter((l) => l.startsWith('portcullis_http_request_duration_seconds_count'));
  };

  it('unknown paths and unauthenticated RPC-shaped paths share one label value', async () => {
    await fetch(`${server.url}/nowhere`);
    await fetch(`${server.url}/portcullis.nothing.v2.NoService/Nothing`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    const before = (await series()).length;
    for (let i = 0; i < 100; i++) {
      await fetch(`${server.url}/random-${i}-${Math.random().toString(36).slice(2)}`);
      await fetch(`${server.url}/evil.pkg${i}.Service${i}/Method${i}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      await fetch(`${server.url}/portcullis.user.v2.UserService/Method${i}`, {
        method: 'POST',
        headers: { 'content-type': 'application/proto' },
        body: '',
      });
    }
    const after = await series();
    expect(after.length - before).toBeLessThanOrEqual(2);
    expect(after.join('\n')).not.toMatch(/random-|evil\.pkg|Method\d/);
    expect(after.some((l) => l.includes('route="unmatched"'))).toBe(true);
  });
});
