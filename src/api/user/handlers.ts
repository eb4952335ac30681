import type { ServiceImpl } from '@connectrpc/connect';
import { UserService } from '../../../gen/portcullis/user/v2/user_service_pb';
import type { Deps } from '../../deps';
import { invalidArgument } from '../../domain/errors';
import { changeUserState, deleteUser } from '../../domain/user/lifecycle';
import { createUser } from '../../domain/user/create-user';
import { updateUser } from '../../domain/user/update-user';
import {
  addKey,
  addSecret,
  createPersonalAccessToken,
  passwordReset,
  removeKey,
  removePersonalAccessToken,
  removeSecret,
  setPassword,
} from '../../domain/user/credentials';
import {
  createInviteCode,
  resendEmailCode,
  resendInviteCode,
  setEmail,
  verifyEmail,
  verifyInviteCode,
} from '../../domain/user/email';
import { deleteUserMetadata, setUserMetadata } from '../../domain/user/metadata';
import {
  getUserById,
  listKeys,
  listPersonalAccessTokens,
  listUserMetadata,
  listUsers,
} from '../../domain/user/queries';
import { ctxOf } from '../context';
import type { IdpRpcs } from './idp-handlers';
import type { PasskeyRpcs } from './passkey-handlers';
import type { SecondFactorRpcs } from './second-factor-handlers';
import { pageIn, pageOut } from '../convert/list';
import { optDate, ts } from '../convert/time';
import { codeDeliveryIn, emailVerificationIn, filterIn, humanIn, machineIn, secretOut, userOut } from './convert';
import type { authenticationMethodHandlers } from './authentication-methods-handlers';
import type { authorizedApplicationHandlers } from './authorized-applications-handlers';

/**
 * portcullis.user.v2.UserService. Handlers convert messages to domain calls and back; permissions
 * (named in the proto comments of each RPC) and every rule live in src/domain/user.
 */
export function userHandlers(
  deps: Deps,
): Omit<
  ServiceImpl<typeof UserService>,
  | SecondFactorRpcs
  | PasskeyRpcs
  | IdpRpcs
  | keyof ReturnType<typeof authenticationMethodHandlers>
  | keyof ReturnType<typeof authorizedApplicationHandlers>
> {
  return {
    async createUser(req, hc) {
      const u = req.userType;
      const r = await createUser(ctxOf(deps, hc), {
        orgId: req.organizationId,
        userId: req.userId,
        username: req.username,
        machine: u.case === 'machine' ? machineIn(u.value) : undefined,
        human:
          u.case === 'human'
            ? { ...humanIn(u.value), metadata: u.value.metadata.map((m) => ({ key: m.key, value: m.value })) }
            : undefined,
      });
      return { id: r.id, creationDate: ts(r.createdAt), emailCode: r.emailCode, phoneCode: r.phoneCode };
    },

    async getUserByID(req, hc) {
      return { user: userOut(await getUserById(ctxOf(deps, hc), req.userId)) };
    },

    async listUsers(req, hc) {
      const r = await listUsers(ctxOf(deps, hc), { filters: req.filters.map(filterIn), page: pageIn(req.pagination) });
      return { pagination: pageOut(r), result: r.items.map(userOut) };
    },

    async updateUser(req, hc) {
      const u = req.userType;
      const r = await updateUser(ctxOf(deps, hc), {
        userId: req.userId,
        username: req.username,
        human: u.case === 'human' ? humanIn(u.value) : undefined,
        machine: u.case === 'machine' ? machineIn(u.value) : undefined,
      });
      return { changeDate: ts(r.changedAt), emailCode: r.emailCode, phoneCode: r.phoneCode };
    },

    async deactivateUser(req, hc) {
      return { changeDate: ts(await changeUserState(ctxOf(deps, hc), req.userId, 'deactivate')) };
    },
    async reactivateUser(req, hc) {
      return { changeDate: ts(await changeUserState(ctxOf(deps, hc), req.userId, 'reactivate')) };
    },
    async lockUser(req, hc) {
      return { changeDate: ts(await changeUserState(ctxOf(deps, hc), req.userId, 'lock')) };
    },
    async unlockUser(req, hc) {
      return { changeDate: ts(await changeUserState(ctxOf(deps, hc), req.userId, 'unlock')) };
    },
    async deleteUser(req, hc) {
      return { deletionDate: ts(await deleteUser(ctxOf(deps, hc), req.userId)) };
    },

    async setPassword(req, hc) {
      if (!req.newPassword) throw invalidArgument('Errors.User.Password.Empty', 'new_password is required');
      const v = req.verification;
      const at = await setPassword(ctxOf(deps, hc), {
        userId: req.userId,
        password: req.newPassword.password,
        changeRequired: req.newPassword.changeRequired,
        currentPassword: v.case === 'currentPassword' ? v.value : undefined,
        verificationCode: v.case === 'verificationCode' ? v.value : undefined,
      });
      return { changeDate: ts(at) };
    },

    async passwordReset(req, hc) {
      const r = await passwordReset(ctxOf(deps, hc), { userId: req.userId, delivery: codeDeliveryIn(req.medium) });
      return { changeDate: ts(r.changedAt), verificationCode: r.code };
    },

    async setEmail(req, hc) {
      const r = await setEmail(ctxOf(deps, hc), {
        userId: req.userId,
        email: req.email,
        verification: emailVerificationIn(req),
      });
      return { changeDate: ts(r.changedAt), verificationCode: r.code };
    },

    async resendEmailCode(req, hc) {
      const r = await resendEmailCode(ctxOf(deps, hc), {
        userId: req.userId,
        verification: codeDeliveryIn(req.verification),
      });
      return { changeDate: ts(r.changedAt), verificationCode: r.code };
    },

    async verifyEmail(req, hc) {
      return { changeDate: ts(await verifyEmail(ctxOf(deps, hc), { userId: req.userId, code: req.verificationCode })) };
    },

    async createInviteCode(req, hc) {
      const v = req.verification;
      const r = await createInviteCode(ctxOf(deps, hc), {
        userId: req.userId,
        delivery:
          v.case === 'returnCode'
            ? { return: true }
            : {
                send:
                  v.case === 'sendCode'
                    ? { urlTemplate: v.value.urlTemplate, applicationName: v.value.applicationName }
                    : {},
              },
      });
      return { changeDate: ts(r.changedAt), inviteCode: r.code };
    },

    async resendInviteCode(req, hc) {
      return { changeDate: ts(await resendInviteCode(ctxOf(deps, hc), { userId: req.userId })) };
    },

    async verifyInviteCode(req, hc) {
      const at = await verifyInviteCode(ctxOf(deps, hc), {
        userId: req.userId,
        code: req.verificationCode,
        password: req.password,
      });
      return { changeDate: ts(at) };
    },

    async addSecret(req, hc) {
      const r = await addSecret(ctxOf(deps, hc), { userId: req.userId });
      return { creationDate: ts(r.createdAt), clientId: r.clientId, clientSecret: r.clientSecret };
    },
    async removeSecret(req, hc) {
      return { deletionDate: ts(await removeSecret(ctxOf(deps, hc), { userId: req.userId })) };
    },

    async addKey(req, hc) {
      const r = await addKey(ctxOf(deps, hc), {
        userId: req.userId,
        expiresAt: optDate(req.expirationDate),
        publicKey: req.publicKey,
      });
      return {
        keyId: r.keyId,
        creationDate: ts(r.createdAt),
        keyContent: r.keyFile ? new TextEncoder().encode(JSON.stringify(r.keyFile)) : new Uint8Array(),
      };
    },
    async removeKey(req, hc) {
      return { deletionDate: ts(await removeKey(ctxOf(deps, hc), { userId: req.userId, keyId: req.keyId })) };
    },
    async listKeys(req, hc) {
      const r = await listKeys(ctxOf(deps, hc), { userId: req.userId, page: pageIn(req.pagination) });
      return { pagination: pageOut(r), result: r.items.map(secretOut) };
    },

    async addPersonalAccessToken(req, hc) {
      const r = await createPersonalAccessToken(ctxOf(deps, hc), {
        userId: req.userId,
        expiresAt: optDate(req.expirationDate),
      });
      return { tokenId: r.id, token: r.token, creationDate: ts(r.createdAt) };
    },
    async removePersonalAccessToken(req, hc) {
      return {
        deletionDate: ts(
          await removePersonalAccessToken(ctxOf(deps, hc), { userId: req.userId, tokenId: req.tokenId }),
        ),
      };
    },
    async listPersonalAccessTokens(req, hc) {
      const r = await listPersonalAccessTokens(ctxOf(deps, hc), { userId: req.userId, page: pageIn(req.pagination) });
      return { pagination: pageOut(r), result: r.items.map(secretOut) };
    },

    async setUserMetadata(req, hc) {
      const at = await setUserMetadata(ctxOf(deps, hc), {
        userId: req.userId,
        metadata: req.metadata.map((m) => ({ key: m.key, value: m.value })),
      });
      return { setDate: ts(at) };
    },
    async deleteUserMetadata(req, hc) {
      return { deletionDate: ts(await deleteUserMetadata(ctxOf(deps, hc), { userId: req.userId, keys: req.keys })) };
    },
    async listUserMetadata(req, hc) {
      const r = await listUserMetadata(ctxOf(deps, hc), { userId: req.userId, page: pageIn(req.pagination) });
      return { pagination: pageOut(r), metadata: r.items };
    },
  };
}
