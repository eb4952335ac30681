import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { ServiceImpl } from '@connectrpc/connect';
import type { InstanceService } from '../../../gen/portcullis/instance/v2/instance_service_pb';
import { WebKeyAlgorithm, WebKeyState } from '../../../gen/portcullis/instance/v2/web_key_pb';
import type { SigningAlgorithm } from '../../crypto/keys/signing';
import { loadMasterKey } from '../../crypto/keys/master-key';
import type { Deps } from '../../deps';
import { requireInstancePermission } from '../../domain/instance/permission';
import { activateWebKey, createWebKey, deleteWebKey, listWebKeys } from '../../domain/oidc/web-keys';
import { ctxOf } from '../context';

const ALG_TO_PROTO: Record<string, WebKeyAlgorithm> = {
  RS256: WebKeyAlgorithm.RS256,
  ES256: WebKeyAlgorithm.ES256,
  EdDSA: WebKeyAlgorithm.EDDSA,
};
const PROTO_TO_ALG: Partial<Record<WebKeyAlgorithm, SigningAlgorithm>> = {
  [WebKeyAlgorithm.RS256]: 'RS256',
  [WebKeyAlgorithm.ES256]: 'ES256',
  [WebKeyAlgorithm.EDDSA]: 'EdDSA',
};
const STATE_TO_PROTO: Record<string, WebKeyState> = {
  INITIAL: WebKeyState.INITIAL,
  ACTIVE: WebKeyState.ACTIVE,
  INACTIVE: WebKeyState.INACTIVE,
};

/** The web key RPCs of InstanceService (rotation of the signing keys on demand). */
export function webKeyHandlers(deps: Deps): Partial<ServiceImpl<typeof InstanceService>> {
  return {
    async listWebKeys(_req, hc) {
      const ctx = ctxOf(deps, hc);
      requireInstancePermission(ctx.principal, 'iam.read');
      const keys = await listWebKeys(ctx);
      return {
        webKeys: keys.map((k) => ({
          id: k.id,
          state: STATE_TO_PROTO[k.state] ?? WebKeyState.UNSPECIFIED,
          algorithm: ALG_TO_PROTO[k.algorithm] ?? WebKeyAlgorithm.UNSPECIFIED,
          creationDate: timestampFromDate(k.createdAt),
          changeDate: timestampFromDate(k.changedAt),
        })),
      };
    },
    async createWebKey(req, hc) {
      const ctx = ctxOf(deps, hc);
      requireInstancePermission(ctx.principal, 'iam.write');
      const k = await createWebKey(ctx, loadMasterKey(deps.config), PROTO_TO_ALG[req.algorithm]);
      return { keyId: k.id, creationDate: timestampFromDate(k.createdAt) };
    },
    async activateWebKey(req, hc) {
      const ctx = ctxOf(deps, hc);
      requireInstancePermission(ctx.principal, 'iam.write');
      const k = await activateWebKey(ctx, req.keyId);
      return { changeDate: timestampFromDate(k.changedAt) };
    },
    async deleteWebKey(req, hc) {
      const ctx = ctxOf(deps, hc);
      requireInstancePermission(ctx.principal, 'iam.write');
      await deleteWebKey(ctx, req.keyId);
      return { deletionDate: timestampFromDate(new Date()) };
    },
  };
}
