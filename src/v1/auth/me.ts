import { Hono } from 'hono';
import type { Deps } from '../../deps';
import { aggregateSequence } from '../../domain/events/sequence';
import { getUserById } from '../../domain/user/queries';
import { toV1User } from '../management/user-convert';
import { authenticate, v1Ctx } from '../request';

/** GET /auth/v1/users/me: the caller itself, in the v1 user shape. */
export function authRoutes(deps: Deps) {
  const app = new Hono();
  app.get('/auth/v1/users/me', async (c) => {
    const principal = await authenticate(deps, c);
    const ctx = v1Ctx(deps, principal, 'auth/v1/GetMyUser');
    const user = await getUserById(ctx, principal.userId);
    return c.json({ user: toV1User(user, await aggregateSequence(ctx, 'user', user.id)) });
  });
  return app;
}
