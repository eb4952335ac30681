import { and, isNotNull, isNull, lt } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { sessions } from '../../db/schema/index';
import type { Ctx } from '../context';
import { invalidArgument } from '../errors';
import { execute } from '../execute';
import { checkWebAuthn, openWebAuthnChallenge, type UserVerification } from './checks/webauthn';
import { createSession, getSession, type SessionOrigin } from './sessions';
import type { LoginUser } from './users';

/**
 * The hosted login's passkey sign-in without a login name: a session of this browser (its user-agent
 * hash) without a user holds the WebAuthn challenge (user verification required, no allowCredentials:
 * the browser offers its discoverable credentials). Returns the session's id and the request options.
 */
export async function startPasskeySignIn(
  ctx: Ctx,
  userAgentHash: string,
  externalUrl: string,
  domain?: string,
  origin: SessionOrigin = {},
) {
  const { id } = await createSession(ctx, { userAgentHash, ...origin });
  const options = await execute(ctx, (work) =>
    openWebAuthnChallenge(work, id, undefined, { userVerification: 'required', externalUrl, domain }),
  );
  return { challengeId: id, options };
}

/**
 * Completes it: the session must be one this browser started for a passkey sign-in (same user-agent
 * hash, no user yet); the assertion is checked as SessionService checks it, and the session then is the
 * credential's user's.
 */
export async function finishPasskeySignIn(
  ctx: Ctx,
  challengeId: string,
  userAgentHash: string | undefined,
  credential: unknown,
  externalUrl: string,
  authRequest: string,
): Promise<{ user: LoginUser; sessionId: string }> {
  const session = await getSession(ctx.db, challengeId);
  if (!session || !userAgentHash || session.userAgentHash !== userAgentHash || session.userId)
    throw invalidArgument('Errors.Session.WebAuthN.NoChallenge', 'no passkey sign-in was started in this browser');
  const { user } = await checkWebAuthn(ctx, challengeId, undefined, { credential, externalUrl, authRequest });
  return { user, sessionId: challengeId };
}

/** A WebAuthn challenge on a signed-in session (a security key or passkey as second factor). */
export function openSecondFactorChallenge(
  ctx: Ctx,
  sessionId: string,
  user: LoginUser,
  externalUrl: string,
  domain?: string,
  userVerification: UserVerification = 'preferred',
) {
  return execute(ctx, (work) =>
    openWebAuthnChallenge(work, sessionId, user, { userVerification, externalUrl, domain }),
  );
}

/** How long a passkey sign-in that was started and never finished keeps its session row. */
const ABANDONED_AFTER_MS = 24 * 3600_000;

/**
 * Deletes the sessions of passkey sign-ins that were started in a browser and never finished: they
 * have a browser but never got a user, so no token and no login refers to them (their history stays in
 * the events). Sessions of custom login UIs (no browser) are theirs to end. Safe on several replicas.
 */
export async function pruneAbandonedPasskeySignIns(db: Db): Promise<number> {
  const before = new Date(Date.now() - ABANDONED_AFTER_MS);
  const gone = await db
    .delete(sessions)
    .where(and(isNull(sessions.userId), isNotNull(sessions.userAgentHash), lt(sessions.createdAt, before)))
    .returning({ id: sessions.id });
  return gone.length;
}
