import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDIRECT } from '../helpers/apps';
import { freshDatabase } from '../helpers/database';
import { addRelyingParty, codeFlowTokens, signedInSubject } from '../helpers/login-flow';
import { freePort, runCli, waitFor } from '../helpers/process';
import { startTestServer, type TestServer } from '../helpers/server';
import { addUser } from '../helpers/users';

/**
 * Instances are the unit of partitioning (docs/scaling.md): each has a database of its own, several may share
 * one PostgreSQL server, and each runs in processes of its own. Two such deployments must know nothing of each
 * other: one's admin token, users and access tokens are strangers to the other. Instance A is a test server,
 * instance B a `portcullis start` process beside it (on the same PostgreSQL server when DATABASE_URL is set);
 * B is reached only over the network, as a stranger would reach it.
 */
describe('two instances side by side, a database and processes each', () => {
  let a: TestServer;
  let b: { url: string; pat: string; stop: () => Promise<void> };
  beforeAll(async () => {
    [a, b] = await Promise.all([startTestServer(), startSecondInstance()]);
  }, 120_000);
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
  });

  const call = (url: string, token: string, method: string, body: object) =>
    fetch(`${url}/${method}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify(body),
    });

  it("refuses each instance's admin token at the other", async () => {
    const getInstance = 'portcullis.instance.v2.InstanceService/GetInstance';
    const ownB = await call(b.url, b.pat, getInstance, {});
    expect(ownB.status).toBe(200);
    expect((await ownB.json()).instance.id).not.toBe(a.app.bootstrap.instanceId);
    expect((await call(a.url, a.pat, getInstance, {})).status).toBe(200);
    expect((await call(b.url, a.pat, getInstance, {})).status).toBe(401);
    expect((await call(a.url, b.pat, getInstance, {})).status).toBe(401);
  });

  it("does not know one instance's user at the other: not by id, not at the sign-in", async () => {
    const user = await addUser(a);
    const lookup = await call(b.url, b.pat, 'portcullis.user.v2.UserService/GetUserByID', { userId: user.id });
    expect(lookup.status).toBe(404);
    const rpOfB = await relyingPartyOfB();
    expect(await signedInSubject(b, rpOfB, user.username, user.password)).toBeUndefined();
    // while B's own user, with the same password, signs in there through the same application
    const own = await call(b.url, b.pat, 'portcullis.user.v2.UserService/CreateUser', {
      organizationId: await defaultOrgOfB(),
      username: `${user.username}-b`,
      human: {
        profile: { givenName: 'Grace', familyName: 'Hopper' },
        email: { email: `${user.username}-b@example.com`, isVerified: true },
        password: { password: user.password },
      },
    });
    expect(own.status).toBe(200);
    const { id } = await own.json();
    expect(await signedInSubject(b, rpOfB, `${user.username}-b`, user.password)).toBe(id);
    expect(await signedInSubject(a, await addRelyingParty(a), user.username, user.password)).toBe(user.id);
  });

  it("does not accept one instance's access token at the other's userinfo", async () => {
    const user = await addUser(a);
    const { tokens } = await codeFlowTokens(a, await addRelyingParty(a), user);
    const userinfo = (url: string) =>
      fetch(`${url}/oidc/v1/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect((await userinfo(a.url)).status).toBe(200);
    expect((await userinfo(b.url)).status).toBe(401);
  });

  const defaultOrgOfB = async () =>
    (await (await call(b.url, b.pat, 'portcullis.instance.v2.InstanceService/GetInstance', {})).json()).instance
      .defaultOrganizationId as string;

  /** A web application on instance B, created through B's API, as an openid-client configuration. */
  async function relyingPartyOfB(): Promise<client.Configuration> {
    const project = await call(b.url, b.pat, 'portcullis.project.v2.ProjectService/CreateProject', {
      organizationId: await defaultOrgOfB(),
      name: 'side-by-side',
    });
    const { projectId } = await project.json();
    const app = await call(b.url, b.pat, 'portcullis.application.v2.ApplicationService/CreateApplication', {
      projectId,
      name: 'side-by-side-web',
      oidc: { redirectUris: [REDIRECT], responseTypes: ['OIDC_RESPONSE_TYPE_CODE'] },
    });
    const { oidc } = await app.json();
    return client.discovery(new URL(b.url), oidc.clientId, oidc.clientSecret, undefined, {
      execute: [client.allowInsecureRequests],
    });
  }
});

/** `portcullis start` on a fresh database of its own (PGlite in memory without DATABASE_URL), one process. */
async function startSecondInstance() {
  const db = await freshDatabase();
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pc-instance-'));
  const patFile = path.join(dir, 'admin.pat');
  const proc = runCli(['start'], {
    ...(db.url ? { DATABASE_URL: db.url } : {}),
    PORT: String(port),
    PORTCULLIS_HOST: '127.0.0.1',
    PORTCULLIS_EXTERNAL_URL: url,
    PORTCULLIS_DATA_DIR: 'memory://',
    PORTCULLIS_ADMIN_PASSWORD: 'Admin-Passw0rd!',
    PORTCULLIS_ADMIN_PAT_FILE: patFile,
    PORTCULLIS_WORKERS: '1',
  });
  const stop = async () => {
    if (proc.child.exitCode === null) proc.child.kill('SIGTERM');
    await proc.exited;
    await db.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitFor(async () => (await fetch(`${url}/readyz`)).ok, 90_000, 'the second instance ready');
  } catch (err) {
    await stop();
    throw new Error(`${(err as Error).message}\n${proc.stderr()}`);
  }
  return { url, pat: fs.readFileSync(patFile, 'utf8').trim(), stop };
}
