import type { Context } from 'hono';
import type { Principal } from '../authz/principal';
import type { Deps } from '../deps';
import type { Ctx } from '../domain/context';
import { invalidArgument, permissionDenied } from '../domain/errors';
import { aggregateSequence } from '../domain/events/sequence';
import { authenticate, v1Ctx } from './request';

/** v1 sends the organization in a header; v2 in the body. The layer moves it from one to the other. */
const ORG_HEADER = 'x-service-orgid';
const ORG_ID = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,199}$/;

export interface V1Call {
  ctx: Ctx;
  principal: Principal;
  /** the organization the call works in: the header's, else the caller's own */
  orgId: string;
}

/**
 * Authenticates the caller and resolves the organization of a management call. A malformed header
 * is INVALID_ARGUMENT; an organization the caller holds no role on is PERMISSION_DENIED (v1 said so
 * instead of v2's NOT_FOUND); the domain function then checks the permission the operation needs.
 */
export async function v1Call(deps: Deps, c: Context, service: string): Promise<V1Call> {
  const principal = await authenticate(deps, c);
  const header = c.req.header(ORG_HEADER);
  let orgId = principal.orgId;
  if (header !== undefined) {
    const value = header.trim();
    if (!ORG_ID.test(value))
      throw invalidArgument('Errors.Org.Header.Invalid', `${ORG_HEADER} must be an organization id`);
    if (!principal.canOrg('org.read', value))
      throw permissionDenied(`the caller may not administer organization ${value}`);
    orgId = value;
  }
  return { ctx: v1Ctx(deps, principal, service), principal, orgId };
}

/** `details` of v1 responses: the aggregate's sequence, the date and the owning organization. */
export async function details(
  ctx: Ctx,
  aggregate: { type: string; id: string },
  resourceOwner: string,
  dates: { created?: Date; changed?: Date },
) {
  const sequence = await aggregateSequence(ctx, aggregate.type, aggregate.id);
  return {
    sequence: String(sequence),
    ...(dates.created ? { creationDate: dates.created.toISOString() } : {}),
    ...(dates.changed ? { changeDate: dates.changed.toISOString() } : {}),
    resourceOwner,
  };
}
