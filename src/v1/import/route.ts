import { Hono } from 'hono';
import type { Deps } from '../../deps';
import { importData } from '../../domain/import/import-data';
import type { ImportResult } from '../../domain/import/model';
import { v1Message } from '../errors';
import { authenticate, readJson, v1Ctx } from '../request';
import { toImportRequest } from './convert';

/**
 * POST /admin/v1/import — the migration tool's body. HTTP 200 whenever the request itself was
 * understood: per-item problems (an existing organization, a duplicate user, a timed-out
 * organization) are errors[] entries next to what was imported.
 */
export function importRoutes(deps: Deps) {
  const app = new Hono();
  app.post('/admin/v1/import', async (c) => {
    const started = Date.now();
    const principal = await authenticate(deps, c);
    const request = toImportRequest(await readJson(c));
    const ctx = v1Ctx(deps, principal, 'admin/v1/import');
    const result = await importData(ctx, request.orgs, {
      deadline: request.timeoutMs === undefined ? undefined : started + request.timeoutMs,
    });
    return c.json(toV1Response(result));
  });
  return app;
}

export function toV1Response(result: ImportResult) {
  return {
    success: {
      orgs: result.orgs.map((o) => ({
        orgId: o.orgId,
        humanUserIds: o.humanUserIds,
        machineUserIds: o.machineUserIds,
        userMetadata: o.userMetadata.map((m) => ({ id: m.userId, key: m.key })),
        projectIds: o.projectIds,
        projectRoles: o.projectRoles.map((r) => `${r.projectId}_${r.key}`),
        oidcAppIds: o.oidcAppIds,
        apiAppIds: o.apiAppIds,
        userGrants: o.userGrants.map((g) => ({ userId: g.userId, projectId: g.projectId })),
        orgMembers: o.orgMembers,
      })),
    },
    errors: result.errors.map((e) => ({ type: e.type, id: e.id, message: v1Message(e.key) })),
  };
}
