import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { ServiceImpl } from '@connectrpc/connect';
import { PasskeyAuthenticatorType } from '../../../gen/portcullis/user/v2/passkeys_pb';
import type { UserService } from '../../../gen/portcullis/user/v2/user_service_pb';
import type { Deps } from '../../deps';
import { invalidArgument } from '../../domain/errors';
import {
  createPasskeyRegistrationLink,
  listPasskeys,
  type Passkey,
  registerPasskey,
  removePasskey,
  verifyPasskeyRegistration,
} from '../../domain/user/factors/webauthn';
import { ctxOf } from '../context';
import { structOf } from '../convert/struct';

export type PasskeyRpcs =
  | 'registerPasskey'
  | 'verifyPasskeyRegistration'
  | 'listPasskeys'
  | 'removePasskey'
  | 'createPasskeyRegistrationLink';

function passkeyOut(p: Passkey) {
  return {
    id: p.id,
    name: p.name ?? '',
    state: p.state,
    authenticator: p.passwordless ? PasskeyAuthenticatorType.PASSKEY : PasskeyAuthenticatorType.SECURITY_KEY,
    domain: p.rpId ?? '',
    backupEligible: p.backupEligible,
    transports: p.transports ?? [],
    creationDate: timestampFromDate(p.createdAt),
    lastUsedDate: p.lastUsedAt ? timestampFromDate(p.lastUsedAt) : undefined,
  };
}

/** The UserService RPCs of passkeys and security keys (WebAuthn). */
export function passkeyHandlers(deps: Deps): Pick<ServiceImpl<typeof UserService>, PasskeyRpcs> {
  const externalUrl = () => deps.config.externalUrl;
  return {
    async registerPasskey(req, hc) {
      const type = req.authenticator === PasskeyAuthenticatorType.SECURITY_KEY ? 'securityKey' : 'passkey';
      const r = await registerPasskey(
        ctxOf(deps, hc),
        { userId: req.userId, type, domain: req.domain || undefined, code: req.code },
        externalUrl(),
      );
      return { passkeyId: r.id, publicKeyCredentialCreationOptions: structOf(r.options) };
    },
    async verifyPasskeyRegistration(req, hc) {
      if (!req.publicKeyCredential)
        throw invalidArgument('Errors.User.Passkey.Invalid', 'public_key_credential is required');
      await verifyPasskeyRegistration(
        ctxOf(deps, hc),
        {
          userId: req.userId,
          passkeyId: req.passkeyId,
          credential: req.publicKeyCredential,
          name: req.passkeyName,
          code: req.code,
        },
        externalUrl(),
      );
      return {};
    },
    async listPasskeys(req, hc) {
      return { passkeys: (await listPasskeys(ctxOf(deps, hc), req.userId)).map(passkeyOut) };
    },
    async removePasskey(req, hc) {
      await removePasskey(ctxOf(deps, hc), req.userId, req.passkeyId);
      return {};
    },
    async createPasskeyRegistrationLink(req, hc) {
      const delivery =
        req.medium.case === 'returnCode'
          ? ({ return: true } as const)
          : {
              send: {
                urlTemplate: req.medium.case === 'sendLink' ? req.medium.value.urlTemplate || undefined : undefined,
              },
            };
      const r = await createPasskeyRegistrationLink(ctxOf(deps, hc), req.userId, delivery, externalUrl());
      return { code: r.code ?? '', expirationDate: timestampFromDate(r.expiresAt) };
    },
  };
}
