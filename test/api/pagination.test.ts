import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server';

// Every v2 list follows one paging rule (spec api-v2: default limit 100, max 1000): an unset limit
// gives 100, 1000 is allowed, anything above is INVALID_ARGUMENT (never a silent cap), and an offset
// that is negative or too large for the database is INVALID_ARGUMENT too, never a 500.
// Called over Connect JSON, as a client without generated code would.

let server: TestServer;

interface Reply {
  status: number;
  body: Record<string, any>;
}

async function call(service: string, method: string, body: object): Promise<Reply> {
  const res = await server.fetch(`/portcullis.${service}/${method}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

async function ok(service: string, method: string, body: object): Promise<Record<string, any>> {
  const r = await call(service, method, body);
  if (r.status !== 200) throw new Error(`${method}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

/** Each list RPC with the request fields it needs besides pagination, and the field holding its page. */
let lists: { service: string; method: string; request: object; items: string }[];

beforeAll(async () => {
  server = await startTestServer();
  const { organizationId } = await ok('org.v2.OrganizationService', 'CreateOrganization', { name: 'Paging Org' });
  const { id: machineId } = await ok('user.v2.UserService', 'CreateUser', {
    organizationId,
    username: 'paging-bot',
    machine: { name: 'Paging bot' },
  });
  // More users than one default page holds, so the default limit shows in ListUsers.
  for (let i = 0; i < 105; i += 15) {
    await Promise.all(
      Array.from({ length: 15 }, (_, j) =>
        ok('user.v2.UserService', 'CreateUser', {
          organizationId,
          username: `pager-${i + j}`,
          machine: { name: `Pager ${i + j}` },
        }),
      ),
    );
  }
  const { projectId } = await ok('project.v2.ProjectService', 'CreateProject', {
    organizationId,
    name: 'Paging Project',
  });
  const { applicationId } = await ok('application.v2.ApplicationService', 'CreateApplication', {
    projectId,
    name: 'Paging API',
    api: {},
  });

  lists = [
    { service: 'user.v2.UserService', method: 'ListUsers', request: {}, items: 'result' },
    { service: 'user.v2.UserService', method: 'ListKeys', request: { userId: machineId }, items: 'result' },
    {
      service: 'user.v2.UserService',
      method: 'ListPersonalAccessTokens',
      request: { userId: machineId },
      items: 'result',
    },
    { service: 'user.v2.UserService', method: 'ListUserMetadata', request: { userId: machineId }, items: 'metadata' },
    { service: 'org.v2.OrganizationService', method: 'ListOrganizations', request: {}, items: 'organizations' },
    {
      service: 'org.v2.OrganizationService',
      method: 'ListOrganizationDomains',
      request: { organizationId },
      items: 'domains',
    },
    {
      service: 'org.v2.OrganizationService',
      method: 'ListOrganizationMetadata',
      request: { organizationId },
      items: 'metadata',
    },
    { service: 'instance.v2.InstanceService', method: 'ListInstanceDomains', request: {}, items: 'domains' },
    { service: 'project.v2.ProjectService', method: 'ListProjects', request: {}, items: 'projects' },
    { service: 'project.v2.ProjectService', method: 'ListProjectRoles', request: { projectId }, items: 'projectRoles' },
    { service: 'project.v2.ProjectService', method: 'ListProjectGrants', request: {}, items: 'projectGrants' },
    { service: 'application.v2.ApplicationService', method: 'ListApplications', request: {}, items: 'applications' },
    {
      service: 'application.v2.ApplicationService',
      method: 'ListApplicationKeys',
      request: { applicationId },
      items: 'keys',
    },
    {
      service: 'authorization.v2.AuthorizationService',
      method: 'ListAuthorizations',
      request: {},
      items: 'authorizations',
    },
    {
      service: 'administrator.v2.AdministratorService',
      method: 'ListAdministrators',
      request: {},
      items: 'administrators',
    },
    { service: 'session.v2.SessionService', method: 'ListSessions', request: {}, items: 'sessions' },
  ];
});

afterAll(() => server?.stop());

describe('the paging rule of every v2 list', () => {
  it('covers every List RPC the services offer', async () => {
    const names = lists.map((l) => l.method);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toHaveLength(16);
  });

  it('gives 100 when no limit is set', async () => {
    for (const l of lists) {
      const body = await ok(l.service, l.method, l.request);
      expect(body.pagination?.appliedLimit, l.method).toBe('100');
      expect((body[l.items] ?? []).length, l.method).toBeLessThanOrEqual(100);
    }
    const users = await ok('user.v2.UserService', 'ListUsers', {});
    expect(Number(users.pagination.totalResult)).toBeGreaterThan(105);
    expect(users.result).toHaveLength(100);
  });

  it('allows a limit of 1000', async () => {
    for (const l of lists) {
      const body = await ok(l.service, l.method, { ...l.request, pagination: { limit: 1000 } });
      expect(body.pagination?.appliedLimit, l.method).toBe('1000');
    }
    const users = await ok('user.v2.UserService', 'ListUsers', { pagination: { limit: 1000 } });
    expect(users.result).toHaveLength(Number(users.pagination.totalResult));
    expect(users.result.length).toBeGreaterThan(105);
  });

  it('refuses a limit above 1000 with INVALID_ARGUMENT instead of capping it', async () => {
    for (const l of lists) {
      const r = await call(l.service, l.method, { ...l.request, pagination: { limit: 1001 } });
      expect(r.status, l.method).toBe(400);
      expect(r.body, l.method).toMatchObject({
        code: 'invalid_argument',
        message: 'pagination.limit must be at most 1000',
      });
    }
  });

  it('refuses an offset the database cannot take with INVALID_ARGUMENT, not a 500', async () => {
    for (const l of lists) {
      const r = await call(l.service, l.method, { ...l.request, pagination: { offset: '18446744073709551615' } });
      expect(r.status, l.method).toBe(400);
      expect(r.body, l.method).toMatchObject({
        code: 'invalid_argument',
        message: expect.stringContaining('pagination.offset'),
      });
    }
    const negative = await call('user.v2.UserService', 'ListUsers', { pagination: { offset: '-1' } });
    expect(negative.status).toBe(400);
    expect(negative.body.code).toBe('invalid_argument');
  });

  it('answers an offset past the end with an empty page and the full total', async () => {
    const body = await ok('user.v2.UserService', 'ListUsers', {
      pagination: { offset: String(Number.MAX_SAFE_INTEGER) },
    });
    expect(body.result ?? []).toHaveLength(0);
    expect(Number(body.pagination.totalResult)).toBeGreaterThan(105);
  });

  it('pages without gaps or repeats', async () => {
    const filters = [{ usernameFilter: { value: 'pager-', method: 'TEXT_FILTER_METHOD_STARTS_WITH' } }];
    const seen: string[] = [];
    for (let offset = 0; offset < 105; offset += 40) {
      const body = await ok('user.v2.UserService', 'ListUsers', {
        filters,
        pagination: { offset: String(offset), limit: 40, asc: true },
      });
      expect(body.pagination).toEqual({ totalResult: '105', appliedLimit: '40' });
      seen.push(...body.result.map((u: { userId: string }) => u.userId));
    }
    expect(seen).toHaveLength(105);
    expect(new Set(seen).size).toBe(105);
  });

  it('orders ListSessions oldest first when asc is set, newest first otherwise', async () => {
    const user = await ok('user.v2.UserService', 'ListUsers', { pagination: { limit: 1 } });
    const userId = user.result[0].userId;
    const created: string[] = [];
    for (let i = 0; i < 3; i++) {
      created.push(
        (await ok('session.v2.SessionService', 'CreateSession', { checks: { user: { userId } } })).sessionId,
      );
      await new Promise((r) => setTimeout(r, 5));
    }
    const ids = async (pagination: object) =>
      (await ok('session.v2.SessionService', 'ListSessions', { userId, pagination })).sessions.map(
        (s: { id: string }) => s.id,
      );
    expect(await ids({ asc: true })).toEqual(created);
    expect(await ids({})).toEqual([...created].reverse());
    expect(await ids({ offset: '1', limit: 1, asc: true })).toEqual([created[1]]);
  });
});
