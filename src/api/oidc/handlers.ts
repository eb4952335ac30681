import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { ServiceImpl } from '@connectrpc/connect';
import { OIDCService } from '../../../gen/portcullis/oidc/v2/oidc_service_pb';
import type { Deps } from '../../deps';
import { invalidArgument } from '../../domain/errors';
import { createCallback, getAuthRequestForLoginUi } from '../../domain/oidc/login-ui';
import { callbackUrl } from '../../domain/oidc/callback-url';
import {
  authorizeOrDenyDeviceAuthorization,
  getDeviceAuthorizationForLoginUi,
} from '../../domain/oidc/device/login-ui';
import { ctxOf } from '../context';

export function oidcHandlers(deps: Deps): ServiceImpl<typeof OIDCService> {
  return {
    async getAuthRequest(req, hc) {
      const r = await getAuthRequestForLoginUi(ctxOf(deps, hc), req.authRequestId);
      return {
        authRequest: {
          id: r.id,
          creationDate: timestampFromDate(r.createdAt),
          clientId: r.clientId,
          scope: r.scopes,
          redirectUri: r.redirectUri,
          prompt: r.prompt,
          loginHint: r.loginHint ?? '',
          maxAge: r.maxAge === null ? undefined : BigInt(r.maxAge),
          uiLocales: r.uiLocales,
          hintUserId: r.hintUserId ?? '',
        },
      };
    },
    async createCallback(req, hc) {
      const ctx = ctxOf(deps, hc);
      const kind = req.callbackKind;
      let r: Awaited<ReturnType<typeof createCallback>>;
      if (kind.case === 'session')
        r = await createCallback(ctx, req.authRequestId, {
          session: { id: kind.value.sessionId, token: kind.value.sessionToken },
        });
      else if (kind.case === 'error')
        r = await createCallback(ctx, req.authRequestId, {
          error: { error: kind.value.error, description: kind.value.errorDescription },
        });
      else throw invalidArgument('Errors.AuthRequest.Callback', 'one of session or error is required');
      return {
        callbackUrl: `${deps.config.externalUrl}${callbackUrl(r.request.id)}&key=${r.callbackKey}`,
        changeDate: timestampFromDate(new Date()),
      };
    },
    async getDeviceAuthorizationRequest(req, hc) {
      const { row, appName } = await getDeviceAuthorizationForLoginUi(ctxOf(deps, hc), req.userCode);
      return {
        deviceAuthorizationRequest: {
          id: row.id,
          clientId: row.clientId,
          appName,
          scope: row.scopes,
          expirationDate: timestampFromDate(row.expiresAt),
        },
      };
    },
    async authorizeOrDenyDeviceAuthorization(req, hc) {
      const d = req.decision;
      if (d.case === 'session')
        await authorizeOrDenyDeviceAuthorization(ctxOf(deps, hc), req.userCode, {
          session: { id: d.value.sessionId, token: d.value.sessionToken },
        });
      else if (d.case === 'deny') await authorizeOrDenyDeviceAuthorization(ctxOf(deps, hc), req.userCode, 'deny');
      else throw invalidArgument('Errors.DeviceAuthorization.Decision', 'one of session or deny is required');
      return { changeDate: timestampFromDate(new Date()) };
    },
  };
}
