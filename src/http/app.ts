import { Hono, type MiddlewareHandler } from 'hono';
import type { Deps } from '../deps';
import { limitBody } from './body-limit';
import { healthRoutes } from './health';
import { oidcRoutes } from '../oidc/routes';
import { loginRoutes } from '../login/routes';
import { consoleRoutes } from '../console/routes';
import { V1_PREFIXES, v1Routes } from '../v1/app';
import { renderV1Error } from '../v1/errors';
import { renderOAuthError, renderOAuthPage, safeDescription } from '../oidc/errors';
import { inputGuard } from './input-guard';
import { tooLargeBody } from '../v1/import/route';
import { createRateLimiter } from './rate-limit/limiter';

const SMALL_BODY_LIMIT = 1024 * 1024;
const IMPORT_PATH = '/admin/v1/import';
/** Routes that check their bodies themselves (the import checks each user), not with the input guard. */
const BULK_PATHS = new Set([IMPORT_PATH, '/management/v1/users/human/_import']);

const PAGE_PATHS = ['/ui/login/', '/oauth/v2/authorize', '/oidc/v1/end_session', '/idps/'];

function rendererFor(path: string) {
  if (V1_PREFIXES.some((p) => path.startsWith(p))) return renderV1Error;
  if (PAGE_PATHS.some((p) => path.startsWith(p))) return renderOAuthPage;
  return renderOAuthError;
}

/**
 * The Hono side of the port: health and metrics, the OIDC endpoints, the hosted login and the v1
 * routes. Each area is a sub-app mounted here; handlers only translate to domain calls.
 */
export function createHttpApp(deps: Deps) {
  const app = new Hono();
  app.use('*', async (c, next) => {
    await next();
    const matched = c.req.matchedRoutes.filter((r) => r.method !== 'ALL').at(-1)?.path;
    const outgoing = (c.env as any)?.outgoing;
    if (outgoing && matched) outgoing.routeLabel = matched;
  });
  // The bulk import may be large (PORTCULLIS_BODY_LIMIT); every other route takes at most 1 MB.
  // The rest of such a body is never read, so the connection cannot be reused: say so.
  const tooLarge = (limit: number) => (c: any) =>
    c.json({ error: 'request_too_large', error_description: `request body larger than ${limit} bytes` }, 413, {
      Connection: 'close',
    });
  // The import answers in the v1 error shape and counts a streamed body itself while it goes to disk
  // (src/v1/import/body.ts); 0 = no limit.
  const bulkLimit = deps.config.bodyLimitBytes;
  const importLimit: MiddlewareHandler =
    bulkLimit > 0
      ? limitBody(bulkLimit, (c) => c.json(tooLargeBody(bulkLimit), 413, { Connection: 'close' }), {
          countsItself: true,
        })
      : (_c, next) => next();
  const defaultLimit = limitBody(SMALL_BODY_LIMIT, tooLarge(SMALL_BODY_LIMIT));
  app.use('*', (c, next) => (c.req.path === IMPORT_PATH ? importLimit(c, next) : defaultLimit(c, next)));
  app.use('*', inputGuard(BULK_PATHS));
  app.route('/', healthRoutes(deps));
  // One set of counters per server: the OIDC endpoints and the login count in buckets of their own.
  const limiter = createRateLimiter(deps.log);
  app.route('/', oidcRoutes(deps, limiter));
  app.route('/', loginRoutes(deps, limiter));
  app.route('/', v1Routes(deps));
  app.route('/', consoleRoutes(deps));

  app.notFound((c) =>
    c.json(
      { error: 'not_found', error_description: safeDescription(`no route for ${c.req.method} ${c.req.path}`) },
      404,
    ),
  );
  // Errors no area answered itself go to the renderer of the area the path belongs to: v1 shape,
  // the HTML error page of the browser endpoints and the login, else OAuth JSON (the shape of
  // every other JSON error here). A domain error always gets its transport's status.
  app.onError((err, c) => {
    if ((err as any)?.status && (err as any).getResponse) return (err as any).getResponse();
    return rendererFor(c.req.path)(c, err, deps.log);
  });
  return app;
}
