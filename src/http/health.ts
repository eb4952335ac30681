import { Hono } from 'hono';
import type { Deps } from '../deps';
import { dbUp, registry } from './metrics';

/**
 * /healthz: the process answers. /readyz: the database answers and takes writes (a standby reached during a
 * failover is not ready); migrations ran before we listen.
 */
export function healthRoutes(deps: Deps) {
  const app = new Hono();
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/readyz', async (c) => {
    try {
      await deps.database.ping(1500);
      dbUp.set(1);
      return c.json({ status: 'ready' });
    } catch {
      dbUp.set(0);
      return c.json({ status: 'unavailable', reason: 'database unreachable or read-only' }, 503);
    }
  });
  app.get('/metrics', async (c) => {
    return c.body(await registry.metrics(), 200, { 'Content-Type': registry.contentType });
  });
  return app;
}
