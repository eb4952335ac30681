import type { ServiceImpl } from '@connectrpc/connect';
import type { UserService } from '../../../gen/portcullis/user/v2/user_service_pb';
import type { Deps } from '../../deps';
import { addOtpChannel, removeOtpChannel } from '../../domain/user/factors/otp-channels';
import { generateRecoveryCodes, removeRecoveryCodes } from '../../domain/user/factors/recovery-codes';
import { registerTotp, removeTotp, verifyTotpRegistration } from '../../domain/user/factors/totp';
import { ctxOf } from '../context';

export type SecondFactorRpcs =
  | 'registerTOTP'
  | 'verifyTOTPRegistration'
  | 'removeTOTP'
  | 'addOTPEmail'
  | 'removeOTPEmail'
  | 'addOTPSMS'
  | 'removeOTPSMS'
  | 'generateRecoveryCodes'
  | 'removeRecoveryCodes';

/** The UserService RPCs of the authenticator app, email and SMS codes and recovery codes. */
export function secondFactorHandlers(deps: Deps): Pick<ServiceImpl<typeof UserService>, SecondFactorRpcs> {
  return {
    async registerTOTP(req, hc) {
      return registerTotp(ctxOf(deps, hc), req.userId);
    },
    async verifyTOTPRegistration(req, hc) {
      await verifyTotpRegistration(ctxOf(deps, hc), req.userId, req.code);
      return {};
    },
    async removeTOTP(req, hc) {
      await removeTotp(ctxOf(deps, hc), req.userId);
      return {};
    },
    async addOTPEmail(req, hc) {
      await addOtpChannel(ctxOf(deps, hc), req.userId, 'otp_email');
      return {};
    },
    async removeOTPEmail(req, hc) {
      await removeOtpChannel(ctxOf(deps, hc), req.userId, 'otp_email');
      return {};
    },
    async addOTPSMS(req, hc) {
      await addOtpChannel(ctxOf(deps, hc), req.userId, 'otp_sms');
      return {};
    },
    async removeOTPSMS(req, hc) {
      await removeOtpChannel(ctxOf(deps, hc), req.userId, 'otp_sms');
      return {};
    },
    async generateRecoveryCodes(req, hc) {
      return { recoveryCodes: await generateRecoveryCodes(ctxOf(deps, hc), req.userId) };
    },
    async removeRecoveryCodes(req, hc) {
      await removeRecoveryCodes(ctxOf(deps, hc), req.userId);
      return {};
    },
  };
}
