import type { Permission } from '../../authz/roles';
import type { Principal } from '../../authz/principal';
import { permissionDenied } from '../errors';

/** The caller holds `perm` on the whole instance, else PERMISSION_DENIED "needs <perm> on the instance". */
export function requireInstancePermission(principal: Principal, perm: Permission): void {
  if (!principal.canInstance(perm)) throw permissionDenied(`needs ${perm} on the instance`);
}
