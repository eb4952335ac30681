import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server';
import { FIXTURES, portcullis, tempDir } from './run-cli';

/** Signs in through the session API; true when the password check passes. */
async function signIn(server: TestServer, loginName: string, password: string): Promise<boolean> {
  const res = await server.fetch('/portcullis.session.v2.SessionService/CreateSession', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ checks: { user: { loginName }, password: { password } } }),
  });
  return res.status === 200;
}

describe('migrate keycloak --url: straight into a running server', () => {
  let server: TestServer;
  let tokenFile: string;
  beforeAll(async () => {
    server = await startTestServer();
    tokenFile = join(tempDir(), 'admin.pat');
    writeFileSync(tokenFile, `${server.pat}\n`);
  });
  afterAll(() => server?.stop());

  const upload = (fixture: string, org: string) =>
    portcullis([
      'migrate',
      'keycloak',
      `--org=${org}`,
      `--realm=${join(FIXTURES, fixture)}`,
      `--url=${server.url}`,
      `--token-file=${tokenFile}`,
      '--batch-size=2',
    ]);

  it('imports in batches; the known passwords sign in, a wrong one does not; a re-run skips what exists', async () => {
    const first = await upload('kc26-argon2-users-0.json', 'middle-earth-org');
    expect(first.stderr).toContain('import: 3 imported or already present, 0 refused (2 request(s))');
    expect(first.code).toBe(0);
    const second = await upload('kc26-argon2-users-0.json', 'middle-earth-org');
    expect(second.code).toBe(0);
    expect(second.stderr).toContain('import: 3 imported or already present, 0 refused');
    const listed = await server.fetch('/portcullis.user.v2.UserService/ListUsers', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({}),
    });
    const names = ((await listed.json()).result ?? []).map((u: any) => u.username);
    expect(names.filter((n: string) => n === 'bilbo')).toHaveLength(1);

    const pbkdf2 = await upload('kc24-users-0.json', 'test-org');
    expect(pbkdf2.stderr).toContain('import: 1 imported');
    for (const [user, password] of [
      ['bilbo', 'bilbo'],
      ['frodo', 'frodo'],
      ['gimli', 'gimli'],
      ['test', '1234'],
    ]) {
      expect(await signIn(server, user, password), user).toBe(true);
      expect(await signIn(server, user, `${password}-wrong`), user).toBe(false);
    }
  });

  it('a refused token is a clear failure with exit status 1', async () => {
    const bad = join(tempDir(), 'bad.pat');
    writeFileSync(bad, 'not-a-token');
    const res = await portcullis([
      'migrate',
      'keycloak',
      '--org=x',
      `--realm=${join(FIXTURES, 'kc11-users-0.json')}`,
      `--url=${server.url}`,
      `--token-file=${bad}`,
    ]);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/answered 401/);
  });
});
