import { Hono } from 'hono';
import { loadMasterKey } from '../../crypto/keys/master-key';
import type { Deps } from '../../deps';
import type { IdpEnv } from '../../domain/idp/env';
import { importData } from '../../domain/import/import-data';
import type { ImportResult } from '../../domain/import/model';
import { permissionDenied } from '../../domain/errors';
import { errorId, v1Message, type V1Error } from '../errors';
import { authenticate, v1Ctx } from '../request';
import { BodyTooLarge, discardSpooled, type SpooledImport, spoolImportBody, streamedOrgs } from './body';

/**
 * POST /admin/v1/import — the migration tool's body. HTTP 200 whenever the request itself was
 * understood: per-item problems (an existing organization, a duplicate user, a timed-out
 * organization) are errors[] entries next to what was imported.
 */
export function importRoutes(deps: Deps) {
  const app = new Hono();
  app.post('/admin/v1/import', async (c) => {
    const started = Date.now();
    // Who may import is settled before a byte of the body is read (or written to disk).
    const principal = await authenticate(deps, c);
    const ctx = v1Ctx(deps, principal, 'admin/v1/import');
    if (!ctx.principal.canInstance('iam.write')) throw permissionDenied('the import needs the IAM_OWNER role');
    let spooled: SpooledImport;
    try {
      // Node's web streams are async iterable.
      spooled = await spoolImportBody(
        c.req.raw.body as unknown as AsyncIterable<Uint8Array> | null,
        deps.config.bodyLimitBytes,
      );
    } catch (err) {
      if (err instanceof BodyTooLarge) return c.json(tooLargeBody(err.limit), 413, { Connection: 'close' });
      throw err;
    }
    try {
      const result = await importData(ctx, streamedOrgs(spooled), {
        idp: idpEnv(deps),
        deadline: spooled.timeoutMs === undefined ? undefined : started + spooled.timeoutMs,
      });
      return c.json(toV1Response(result));
    } finally {
      await discardSpooled(spooled);
    }
  });
  return app;
}

/** The external URL is read per request: tests set it once the port is known. */
const idpEnv = (deps: Deps): IdpEnv => ({
  masterKey: loadMasterKey(deps.config),
  externalUrl: deps.config.externalUrl,
});

function toV1Response(result: ImportResult) {
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
        // Omitted when empty, as protobuf JSON omits empty lists: bodies without providers answer as before.
        ...(o.idpIds.length ? { idpIds: o.idpIds } : {}),
        ...(o.userLinks.length
          ? {
              userLinks: o.userLinks.map((l) => ({
                userId: l.userId,
                idpId: l.idpId,
                providedUserId: l.externalUserId,
              })),
            }
          : {}),
      })),
    },
    errors: result.errors.map((e) => ({ type: e.type, id: e.id, message: v1Message(e.key) })),
  };
}

/** 413 in the v1 error shape (grpc-gateway's, code 8 = RESOURCE_EXHAUSTED). */
export function tooLargeBody(limit: number): V1Error {
  const message = `the request body is larger than ${limit} bytes (PORTCULLIS_BODY_LIMIT)`;
  return { code: 8, message, details: [{ id: errorId('Errors.Import.TooLarge'), message: 'Errors.Import.TooLarge' }] };
}
