import type { Ctx } from '../context';
import { permissionDenied } from '../errors';

/** A custom login UI acts for the users who sign in through it: it needs `user.write` on the instance. */
export function requireLoginUiPermission(ctx: Ctx): void {
  if (!ctx.principal.canInstance('user.write'))
    throw permissionDenied('needs user.write on the instance (a login UI service user)');
}
