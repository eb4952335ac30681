import { Hono } from 'hono';
import type { Deps } from '../../deps';
import { createOrganization } from '../../domain/org/create-organization';
import { getOrganization } from '../../domain/org/queries';
import { details, v1Call } from '../context';
import { readJson } from '../request';
import { str } from '../shape';

const ORG_STATES: Record<string, string> = {
  ACTIVE: 'ORG_STATE_ACTIVE',
  INACTIVE: 'ORG_STATE_INACTIVE',
  REMOVED: 'ORG_STATE_REMOVED',
};

/** v1 AddOrg and GetMyOrg, onto the v2 CreateOrganization and GetOrganization. */
export function managementOrgRoutes(deps: Deps) {
  const app = new Hono();
  app.post('/management/v1/orgs', async (c) => {
    const { ctx, principal } = await v1Call(deps, c, 'management/v1/AddOrg');
    const body = await readJson(c);
    // v1 made the caller the new organization's owner; v2 names the administrators explicitly.
    const org = await createOrganization(ctx, {
      name: str(body, 'name', '') ?? '',
      admins: [{ userId: principal.userId }],
    });
    return c.json({
      id: org.id,
      details: await details(ctx, { type: 'org', id: org.id }, org.id, { created: org.createdAt }),
    });
  });
  app.get('/management/v1/orgs/me', async (c) => {
    const { ctx, orgId } = await v1Call(deps, c, 'management/v1/GetMyOrg');
    const org = await getOrganization(ctx, orgId);
    return c.json({
      org: {
        id: org.id,
        details: await details(ctx, { type: 'org', id: org.id }, org.id, {
          created: org.createdAt,
          changed: org.changedAt,
        }),
        state: ORG_STATES[org.state] ?? 'ORG_STATE_UNSPECIFIED',
        name: org.name,
        primaryDomain: org.primaryDomain,
      },
    });
  });
  return app;
}
