import { Hono } from 'hono';
import type { Deps } from '../deps';
import { renderV1Error } from './errors';
import { eventRoutes } from './events/route';
import { importRoutes } from './import/route';
import { authRoutes } from './auth/me';
import { managementAppRoutes } from './management/apps';
import { managementOrgRoutes } from './management/orgs';
import { managementProjectRoutes } from './management/projects';
import { managementUserRoutes } from './management/users';

/** The paths of the v1 API: errors under them are answered in the v1 shape (renderV1Error). */
export const V1_PREFIXES = ['/admin/v1/', '/management/v1/', '/auth/v1/'];

/**
 * The v1 REST compatibility layer (`/admin/v1/`, `/management/v1/`, `/auth/v1/`). Routes convert v1
 * requests onto the same domain functions as v2 and answer errors in grpc-gateway's JSON shape.
 */
export function v1Routes(deps: Deps) {
  const app = new Hono();
  app.route('/', importRoutes(deps));
  app.route('/', eventRoutes(deps));
  app.route('/', managementUserRoutes(deps));
  app.route('/', managementOrgRoutes(deps));
  app.route('/', managementProjectRoutes(deps));
  app.route('/', managementAppRoutes(deps));
  app.route('/', authRoutes(deps));
  // Anything else under the v1 prefixes answers like grpc-gateway does for an unknown path.
  for (const prefix of V1_PREFIXES.map((p) => `${p}*`)) {
    app.all(prefix, (c) =>
      c.json({ code: 5, message: `no v1 operation at ${c.req.method} ${c.req.path}`, details: [] }, 404),
    );
  }
  app.onError((err, c) => renderV1Error(c, err, deps.log));
  return app;
}
