import type { Db } from '../db/client';
import type { Runtime } from '../deps';
import type { Principal } from '../authz/principal';

/**
 * Where a read of one server looks: its database handle (or a transaction on it) and its runtime, whose
 * caches the read may answer from and fill. Every Ctx is one; transports make one with sourceOf(deps).
 */
export interface Source {
  db: Db;
  runtime: Runtime;
}

/**
 * Who is calling and through which door. Every command and query takes one; events record
 * `principal.userId` as editor and `service` as the API or endpoint.
 */
export interface Ctx extends Source {
  instanceId: string;
  principal: Principal;
  /** e.g. `portcullis.user.v2.UserService/CreateUser`, `oidc/token`, `admin/v1/import`, `bootstrap` */
  service: string;
  /**
   * The server's own origin (scheme, host and port of its external URL), where the transport knows it:
   * links a user may choose must lead back to it or to an https domain of the instance.
   */
  origin?: string;
}
