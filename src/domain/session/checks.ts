import type { Ctx } from '../context';
import { failedPrecondition, invalidArgument, notFound } from '../errors';
import { requireLoginUiPermission } from './login-ui-permission';
import { checkPassword } from './password-check';
import { execute } from '../execute';
import { checkOtp, type OtpDelivery, openOtpChallenge } from './checks/otp';
import { checkIdpIntent, type IdpIntentCheck } from './checks/idp-intent';
import { checkRecoveryCode } from './checks/recovery-code';
import { checkTotp } from './checks/totp';
import {
  checkWebAuthn,
  openWebAuthnChallenge,
  type WebAuthnChallengeRequest,
  type WebAuthnCheck,
} from './checks/webauthn';
import { createSession, getSession, type Session, setSessionPasswordChecked, terminateSessions } from './sessions';
import { findUserById, findUserByLoginName, type LoginUser } from './users';
import { type CodeFactor, FACTORS } from '../sign-in/factors';

/** What a custom login UI asks a session to prove: who the user is, and (optionally) their password. */
export interface SessionChecks {
  user?: { userId?: string; loginName?: string };
  password?: string;
  /** second factors (src/domain/session/checks/): the codes as the user typed them */
  totp?: string;
  otpEmail?: string;
  otpSms?: string;
  recoveryCode?: string;
  /** a passkey or security key answering the session's WebAuthn challenge (checks/webauthn.ts) */
  webAuthN?: WebAuthnCheck;
  /** a finished sign-in at an upstream identity provider (checks/idp-intent.ts) */
  idpIntent?: IdpIntentCheck;
}

/** Challenges a custom login UI asks a session to open (each replaces an earlier one of its kind). */
export interface ChallengeRequests {
  otpEmail?: OtpDelivery;
  otpSms?: OtpDelivery;
  webAuthN?: WebAuthnChallengeRequest;
}

/** What the opened challenges hand back: the codes the caller asked to have returned. */
export interface OpenedChallenges {
  otpEmail?: string;
  otpSms?: string;
  /** `PublicKeyCredentialRequestOptionsJSON` for navigator.credentials.get() */
  webAuthN?: Awaited<ReturnType<typeof openWebAuthnChallenge>>;
}

const needsUser = (what: string) => invalidArgument('Errors.Session.User.Missing', `${what} needs checks.user`);

/** Runs the second-factor checks asked for, in a fixed order; each records its success on the session. */
async function runFactorChecks(
  ctx: Ctx,
  sessionId: string,
  user: LoginUser | undefined,
  checks: SessionChecks,
): Promise<Session | undefined> {
  let session: Session | undefined;
  const codes = [
    ['totp', (u: LoginUser, c: string) => checkTotp(ctx, sessionId, u, c)],
    ['otpEmail', (u: LoginUser, c: string) => checkOtp(ctx, sessionId, u, 'otpEmail', c)],
    ['otpSms', (u: LoginUser, c: string) => checkOtp(ctx, sessionId, u, 'otpSms', c)],
    ['recoveryCode', (u: LoginUser, c: string) => checkRecoveryCode(ctx, sessionId, u, c)],
  ] as const satisfies readonly (readonly [CodeFactor, unknown])[];
  for (const [factor, check] of codes) {
    const code = checks[factor];
    if (code === undefined) continue;
    if (!user) throw needsUser(FACTORS[factor].field);
    session = await check(user, code);
  }
  return session;
}

/** Opens the challenges asked for on the session of `user`; returns the codes to hand back. */
async function openChallenges(
  ctx: Ctx,
  sessionId: string,
  user: LoginUser | undefined,
  requests: ChallengeRequests,
): Promise<OpenedChallenges> {
  const kinds = (['otpEmail', 'otpSms'] as const).filter((k) => requests[k]);
  if (!kinds.length && !requests.webAuthN) return {};
  return execute(ctx, async (work) => {
    const opened: OpenedChallenges = {};
    if (requests.webAuthN) opened.webAuthN = await openWebAuthnChallenge(work, sessionId, user, requests.webAuthN);
    if (!kinds.length) return opened;
    if (!user) throw needsUser('challenges');
    for (const kind of kinds) opened[kind] = await openOtpChallenge(work, sessionId, user, kind, requests[kind]!);
    return opened;
  });
}

async function resolveUser(ctx: Ctx, user: SessionChecks['user']): Promise<LoginUser | undefined> {
  if (!user) return undefined;
  const found = user.userId
    ? await findUserById(ctx.db, user.userId)
    : user.loginName
      ? await findUserByLoginName(ctx, ctx.instanceId, user.loginName)
      : undefined;
  if (!user.userId && !user.loginName)
    throw invalidArgument('Errors.Session.User.Missing', 'checks.user needs user_id or login_name');
  if (!found || found.state === 'REMOVED') throw notFound('Errors.User.NotFound', 'user not found');
  return found;
}

async function runPassword(ctx: Ctx, user: LoginUser | undefined, password: string): Promise<LoginUser> {
  if (!user) throw invalidArgument('Errors.Session.User.Missing', 'checks.password needs checks.user');
  const result = await checkPassword(ctx, user, password);
  if (!result.ok) {
    if (result.reason === 'locked') throw failedPrecondition('Errors.User.Locked', 'the user is locked');
    throw invalidArgument('Errors.User.Password.Invalid', 'checks.password: the password is wrong');
  }
  return result.user;
}

/**
 * A new session with the checks asked for; a failing password check creates no session, and a failing
 * second-factor check (run once the session exists) ends it again.
 */
export async function createSessionWithChecks(
  ctx: Ctx,
  checks: SessionChecks,
  lifetimeSeconds?: number,
  challenges: ChallengeRequests = {},
) {
  requireLoginUiPermission(ctx);
  let user = await resolveUser(ctx, checks.user);
  if (checks.password !== undefined) user = await runPassword(ctx, user, checks.password);
  const created = await createSession(ctx, {
    userId: user?.id,
    orgId: user?.orgId,
    passwordChecked: checks.password !== undefined,
    lifetimeSeconds,
  });
  try {
    let firstFactor: Session | undefined;
    if (checks.idpIntent)
      ({ session: firstFactor, user } = await checkIdpIntent(ctx, created.id, user, checks.idpIntent));
    if (checks.webAuthN) ({ session: firstFactor, user } = await checkWebAuthn(ctx, created.id, user, checks.webAuthN));
    const session = (await runFactorChecks(ctx, created.id, user, checks)) ?? firstFactor ?? created.session;
    const opened = await openChallenges(ctx, created.id, user, challenges);
    return { ...created, session, opened };
  } catch (err) {
    await terminateSessions(ctx, [created.id]);
    throw err;
  }
}

/** Adds checks to a session: its token proves ownership; the user of a session cannot change once set. */
export async function setSessionChecks(
  ctx: Ctx,
  sessionId: string,
  token: string,
  checks: SessionChecks,
  challenges: ChallengeRequests = {},
): Promise<Session & { opened: OpenedChallenges }> {
  requireLoginUiPermission(ctx);
  const session = await getSession(ctx.db, sessionId, token);
  if (!session) throw notFound('Errors.Session.NotFound', 'session not found');
  let user =
    (await resolveUser(ctx, checks.user)) ?? (session.userId ? await findUserById(ctx.db, session.userId) : undefined);
  if (user && session.userId && user.id !== session.userId)
    throw invalidArgument('Errors.Session.User.Changed', 'checks.user differs from the session user');
  let current: Session = user ? { ...session, userId: user.id, orgId: user.orgId } : session;
  if (checks.password !== undefined) {
    user = await runPassword(ctx, user, checks.password);
    current = await setSessionPasswordChecked(ctx, sessionId, user);
  }
  if (checks.idpIntent) ({ session: current, user } = await checkIdpIntent(ctx, sessionId, user, checks.idpIntent));
  if (checks.webAuthN) ({ session: current, user } = await checkWebAuthn(ctx, sessionId, user, checks.webAuthN));
  current = (await runFactorChecks(ctx, sessionId, user, checks)) ?? current;
  const opened = await openChallenges(ctx, sessionId, user, challenges);
  return { ...current, opened };
}
