import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { ServiceImpl } from '@connectrpc/connect';
import { SessionService } from '../../../gen/portcullis/session/v2/session_service_pb';
import {
  type Checks,
  type RequestChallenges,
  type RequestOTP,
  UserVerificationRequirement,
} from '../../../gen/portcullis/session/v2/session_service_pb';
import type { Deps } from '../../deps';
import { invalidArgument } from '../../domain/errors';
import {
  type ChallengeRequests,
  createSessionWithChecks,
  type OpenedChallenges,
  type SessionChecks,
  setSessionChecks,
} from '../../domain/session/checks';
import type { OtpDelivery } from '../../domain/session/checks/otp';
import { requireLoginUiPermission } from '../../domain/session/login-ui-permission';
import { requireOwnSessionOrLoginUi, requireOwnSessionsOrLoginUi } from '../../domain/session/own-sessions';
import { deliverLogoutsNow } from '../../domain/oidc/logout/delivery';
import { getSession, listSessions, type Session, terminateSessions } from '../../domain/session/sessions';
import { notFound } from '../../domain/errors';
import { ctxOf } from '../context';
import { pageIn, pageOut } from '../convert/list';
import { structOf } from '../convert/struct';

function checksOf(c: Checks | undefined, externalUrl: string): SessionChecks {
  const out: SessionChecks = {};
  if (c?.user) {
    const s = c.user.search;
    if (s.case === 'userId') out.user = { userId: s.value };
    else if (s.case === 'loginName') out.user = { loginName: s.value };
    else throw invalidArgument('Errors.Session.User.Missing', 'checks.user needs user_id or login_name');
  }
  if (c?.password) out.password = c.password.password;
  if (c?.totp) out.totp = c.totp.code;
  if (c?.otpEmail) out.otpEmail = c.otpEmail.code;
  if (c?.otpSms) out.otpSms = c.otpSms.code;
  if (c?.recoveryCode) out.recoveryCode = c.recoveryCode.code;
  if (c?.webAuthN) out.webAuthN = { credential: c.webAuthN.credentialAssertionData, externalUrl };
  if (c?.idpIntent) out.idpIntent = { intentId: c.idpIntent.idpIntentId, token: c.idpIntent.idpIntentToken };
  return out;
}

function otpDeliveryOf(r: RequestOTP | undefined): OtpDelivery | undefined {
  if (!r) return undefined;
  return r.deliveryType.case === 'returnCode' ? { return: true } : { send: true };
}

const USER_VERIFICATION = {
  [UserVerificationRequirement.UNSPECIFIED]: 'preferred',
  [UserVerificationRequirement.REQUIRED]: 'required',
  [UserVerificationRequirement.PREFERRED]: 'preferred',
  [UserVerificationRequirement.DISCOURAGED]: 'discouraged',
} as const;

function challengesOf(r: RequestChallenges | undefined, externalUrl: string): ChallengeRequests {
  const w = r?.webAuthN;
  return {
    otpEmail: otpDeliveryOf(r?.otpEmail),
    otpSms: otpDeliveryOf(r?.otpSms),
    webAuthN: w
      ? {
          domain: w.domain || undefined,
          userVerification: USER_VERIFICATION[w.userVerificationRequirement],
          externalUrl,
        }
      : undefined,
  };
}

function openedOut(o: OpenedChallenges) {
  return {
    otpEmail: o.otpEmail ?? '',
    otpSms: o.otpSms ?? '',
    webAuthN: o.webAuthN ? { publicKeyCredentialRequestOptions: structOf(o.webAuthN) } : undefined,
  };
}

function toProto(s: Session & { applicationName?: string | null }) {
  return {
    id: s.id,
    userId: s.userId ?? '',
    organizationId: s.orgId ?? '',
    passwordCheckedAt: s.passwordCheckedAt ? timestampFromDate(s.passwordCheckedAt) : undefined,
    creationDate: timestampFromDate(s.createdAt),
    changeDate: timestampFromDate(s.changedAt),
    expirationDate: s.expiresAt ? timestampFromDate(s.expiresAt) : undefined,
    factors: factorsOf(s),
    amr: s.amr,
    userAgent: s.userAgent ?? '',
    ipAddress: s.ipAddress ?? '',
    clientId: s.clientId ?? '',
    applicationName: s.applicationName ?? '',
  };
}

/** When each factor was checked in the session (the factor_checks column, one time per factor). */
function factorsOf(s: Session) {
  const at = (f: keyof NonNullable<Session['factorChecks']>) => {
    const when = s.factorChecks?.[f]?.at;
    return when ? timestampFromDate(new Date(when)) : undefined;
  };
  return {
    passwordCheckedAt: s.passwordCheckedAt ? timestampFromDate(s.passwordCheckedAt) : at('password'),
    totpCheckedAt: at('totp'),
    otpEmailCheckedAt: at('otpEmail'),
    otpSmsCheckedAt: at('otpSms'),
    webAuthNCheckedAt: at('webAuthN'),
    webAuthNUserVerified: s.factorChecks?.webAuthN?.userVerified ?? false,
    recoveryCodeCheckedAt: at('recoveryCode'),
    idpIntentCheckedAt: at('idpIntent'),
    idpId: s.factorChecks?.idpIntent?.idpId ?? '',
  };
}

export function sessionHandlers(deps: Deps): ServiceImpl<typeof SessionService> {
  return {
    async createSession(req, hc) {
      const ctx = ctxOf(deps, hc);
      const lifetime = Number(req.lifetimeSeconds);
      const { id, token, session, opened } = await createSessionWithChecks(
        ctx,
        checksOf(req.checks, deps.config.externalUrl),
        lifetime > 0 ? lifetime : undefined,
        challengesOf(req.challenges, deps.config.externalUrl),
      );
      return {
        sessionId: id,
        sessionToken: token,
        creationDate: timestampFromDate(session.createdAt),
        challenges: openedOut(opened),
      };
    },
    async setSession(req, hc) {
      const s = await setSessionChecks(
        ctxOf(deps, hc),
        req.sessionId,
        req.sessionToken,
        checksOf(req.checks, deps.config.externalUrl),
        challengesOf(req.challenges, deps.config.externalUrl),
      );
      return { changeDate: timestampFromDate(s.changedAt), challenges: openedOut(s.opened) };
    },
    async getSession(req, hc) {
      const ctx = ctxOf(deps, hc);
      requireLoginUiPermission(ctx);
      const s = await getSession(ctx.db, req.sessionId, req.sessionToken || undefined);
      if (!s) throw notFound('Errors.Session.NotFound', 'session not found');
      return { session: toProto(s) };
    },
    async listSessions(req, hc) {
      const ctx = ctxOf(deps, hc);
      requireOwnSessionsOrLoginUi(ctx, req.userId || undefined);
      const list = await listSessions(ctx.db, { userId: req.userId || undefined, page: pageIn(req.pagination) });
      return { pagination: pageOut(list), sessions: list.items.map(toProto) };
    },
    async deleteSession(req, hc) {
      const ctx = ctxOf(deps, hc);
      await requireOwnSessionOrLoginUi(ctx, req.sessionId);
      await terminateSessions(ctx, [req.sessionId]);
      void deliverLogoutsNow(deps);
      return { deletionDate: timestampFromDate(new Date()) };
    },
  };
}
