import { systemPrincipal } from '../../src/authz/principal';
import { administrators } from '../../src/db/schema/index';
import { execute } from '../../src/domain/execute';
import { addMachineUser } from '../../src/domain/user/add-users';
import { addPersonalAccessToken } from '../../src/domain/user/personal-access-tokens';
import type { TestServer } from '../helpers/server';

/** POSTs JSON to a v1 route with the admin PAT (or `token`) and returns status and parsed body. */
export async function post(
  server: TestServer,
  path: string,
  body: unknown,
  init: { token?: string | null; headers?: Record<string, string> } = {},
) {
  const res = await server.fetch(path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...init.headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    token: init.token,
  });
  return { status: res.status, body: (await res.json()) as any };
}

export async function get(
  server: TestServer,
  path: string,
  init: { token?: string | null; headers?: Record<string, string> } = {},
) {
  const res = await server.fetch(path, { headers: init.headers, token: init.token });
  return { status: res.status, body: (await res.json()) as any };
}

let n = 0;
/**
 * A machine user with a PAT in `orgId`, holding `roles` on that organization (ORG_OWNER etc.) or on
 * the instance (IAM_*). Set up through the domain, as an administrator would through the API.
 */
export async function userWithPat(
  server: TestServer,
  orgId: string,
  roles: string[] = [],
): Promise<{ userId: string; pat: string }> {
  const { database } = server.app;
  const instanceId = server.app.bootstrap.instanceId;
  const ctx = { db: database.db, instanceId, principal: systemPrincipal(instanceId, 'test'), service: 'test' };
  return execute(ctx, async (work) => {
    const user = await addMachineUser(work, {
      orgId,
      username: `v1-test-${process.pid}-${Date.now()}-${n++}`,
      name: 'v1 test',
    });
    const instanceRoles = roles.filter((r) => r.startsWith('IAM_'));
    const orgRoles = roles.filter((r) => !r.startsWith('IAM_'));
    // Memberships of a brand-new user: plain rows are enough (no cached principal to invalidate).
    if (instanceRoles.length) {
      await work.tx.insert(administrators).values({
        userId: user.id,
        resourceType: 'INSTANCE',
        resourceId: instanceId,
        resourceOwner: instanceId,
        roles: instanceRoles,
      });
    }
    if (orgRoles.length)
      await work.tx
        .insert(administrators)
        .values({ userId: user.id, resourceType: 'ORG', resourceId: orgId, resourceOwner: orgId, roles: orgRoles });
    const { token } = await addPersonalAccessToken(work, { userId: user.id, orgId });
    return { userId: user.id, pat: token };
  });
}

/** The organization created on first start (the bootstrap admin belongs to it). */
export async function defaultOrgId(server: TestServer): Promise<string> {
  const { findInstance } = await import('../../src/domain/instance/queries');
  return (await findInstance(server.app.database.db))!.defaultOrgId;
}

export function human(userId: string, userName: string, extra: Record<string, unknown> = {}) {
  return {
    userId,
    user: {
      userName,
      profile: { firstName: 'Ada', lastName: 'Lovelace', displayName: `Ada ${userName}`, preferredLanguage: 'en' },
      email: { email: `${userName}@example.com`, isEmailVerified: true },
      ...extra,
    },
  };
}
