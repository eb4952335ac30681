import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../src/crypto/passwords/index';
import { startTestServer, type TestServer } from '../helpers/server';
import { human, post } from './helpers';

const uniq = () => `${Date.now()}${Math.floor(Math.random() * 1e6)}`;

/** Sends a body in chunks without Content-Length, as a client streaming a large file does. */
async function postStreamed(server: TestServer, text: string, chunk = 64 * 1024) {
  const bytes = Buffer.from(text);
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (let i = 0; i < bytes.length; i += chunk) controller.enqueue(bytes.subarray(i, i + chunk));
      controller.close();
    },
  });
  const res = await server.fetch('/admin/v1/import', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body,
    // @ts-expect-error Node's fetch needs this for a stream body
    duplex: 'half',
  });
  return { status: res.status, body: (await res.json()) as any };
}

async function countUsers(server: TestServer, orgId: string): Promise<number> {
  const res = await server.fetch('/portcullis.user.v2.UserService/ListUsers', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ filters: [{ organizationIdFilter: { organizationId: orgId } }] }),
  });
  return Number((await res.json()).pagination?.totalResult ?? 0);
}

describe('POST /admin/v1/import reads its body as a stream', () => {
  let server: TestServer;
  let hash: string;
  beforeAll(async () => {
    server = await startTestServer({ PORTCULLIS_BODY_LIMIT: '4mb' });
    hash = await hashPassword('Imported-Passw0rd');
  });
  afterAll(() => server?.stop());

  it('imports users spread over several batches in any key order, and reports repeats across batches', async () => {
    const id = uniq();
    const users = Array.from({ length: 5600 }, (_, i) =>
      human(`s${i}x${id}`, `user${i}x${id}`, { hashedPassword: { value: hash } }),
    );
    users.push(human(`s5x${id}`, `again${id}`), human(`other${id}`, `USER7x${id}`)); // in the second batch of 5,000
    // Metadata before the users, the users before the organization's name, snake_case keys.
    const metadata = `[{"id":"s1x${id}","key":"k","value":"${Buffer.from('v').toString('base64')}"}]`;
    const text = `{"timeout":"5m","data_orgs":{"orgs":[{"user_metadata":${metadata},
      "human_users":${JSON.stringify(users)},"org_id":"o${id}","org":{"name":"Streamed ${id}"}}]}}`;
    const res = await postStreamed(server, text, 7777);
    expect(res.status).toBe(200);
    expect(res.body.success.orgs[0].humanUserIds).toHaveLength(5600);
    expect(res.body.success.orgs[0].userMetadata).toEqual([{ id: `s1x${id}`, key: 'k' }]);
    const failed = Object.fromEntries(res.body.errors.map((e: any) => [e.id, e.message]));
    expect(failed[`s5x${id}`]).toContain('Errors.User.AlreadyExisting');
    expect(failed[`other${id}`]).toContain('Errors.User.AlreadyExisting');
    expect(await countUsers(server, `o${id}`)).toBe(5600);

    // A re-run of the same body adds nothing and counts every user as present.
    const again = await postStreamed(server, text);
    expect(again.body.success.orgs[0].humanUserIds).toHaveLength(5600);
    expect(again.body.success.orgs[0].userMetadata).toEqual([]);
    expect(again.body.errors.map((e: any) => e.id)).toEqual(
      expect.arrayContaining([`s5x${id}`, `other${id}`, `o${id}`]),
    );
    expect(await countUsers(server, `o${id}`)).toBe(5600);
  });

  it('a body broken at its very end imports nothing at all', async () => {
    const id = uniq();
    const users = Array.from({ length: 500 }, (_, i) =>
      human(`b${i}x${id}`, `broken${i}x${id}`, { hashedPassword: { value: hash } }),
    );
    const whole = JSON.stringify({
      dataOrgs: {
        orgs: [
          { orgId: `first${id}`, org: { name: `First ${id}` }, humanUsers: users },
          { orgId: `second${id}`, org: { name: `Second ${id}` } },
        ],
      },
    });
    for (const broken of [whole.slice(0, -3), `${whole.slice(0, -2)},]}}`, `${whole}x`]) {
      const res = await postStreamed(server, broken);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 3, message: expect.stringMatching(/not valid JSON/) });
    }
    const bad = await postStreamed(server, whole.replace(`"orgId":"second${id}"`, '"orgId":"has space"'));
    expect(bad.status).toBe(400);
    expect(await countUsers(server, `first${id}`)).toBe(0);
  });

  it('a body over PORTCULLIS_BODY_LIMIT is 413 in the v1 error shape, declared or streamed', async () => {
    const id = uniq();
    const users = Array.from({ length: 20000 }, (_, i) => human(`l${i}x${id}`, `large${i}x${id}`));
    const text = JSON.stringify({
      dataOrgs: { orgs: [{ orgId: `large${id}`, org: { name: `Large ${id}` }, humanUsers: users }] },
    });
    expect(text.length).toBeGreaterThan(4 * 1024 * 1024);
    for (const res of [await post(server, '/admin/v1/import', text), await postStreamed(server, text)]) {
      expect(res.status).toBe(413);
      expect(res.body).toEqual({
        code: 8,
        message: expect.stringContaining('PORTCULLIS_BODY_LIMIT'),
        details: [{ id: expect.any(String), message: 'Errors.Import.TooLarge' }],
      });
    }
    expect(await countUsers(server, `large${id}`)).toBe(0);
  });

  it('a caller without a token is refused before its body is read', async () => {
    const body = JSON.stringify({ dataOrgs: { orgs: [] } }).padEnd(1024 * 1024, ' ');
    const anonymous = await server.fetch('/admin/v1/import', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body,
      token: null,
    });
    expect(anonymous.status).toBe(401);
  });
});
