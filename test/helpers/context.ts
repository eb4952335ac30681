import { systemPrincipal } from '../../src/authz/principal';
import type { Ctx } from '../../src/domain/context';
import { findInstance } from '../../src/domain/instance/queries';
import type { TestServer } from './server';

/** The context the server's own background work runs with (IAM_OWNER): set-up no caller's rights should limit. */
export function systemCtx(server: TestServer): Ctx {
  const { deps } = server.app;
  return {
    db: deps.database.db,
    runtime: deps.runtime,
    instanceId: deps.instanceId,
    principal: systemPrincipal(deps.instanceId, 'test'),
    service: 'test',
  };
}

/** The organization created on first start (the bootstrap admin belongs to it). */
export async function defaultOrgId(server: TestServer): Promise<string> {
  return (await findInstance(server.app.deps.database.db))!.defaultOrgId;
}
