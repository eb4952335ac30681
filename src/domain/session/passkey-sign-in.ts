import type { Ctx } from '../context';
import { invalidArgument } from '../errors';
import { execute } from '../execute';
import { checkWebAuthn, openWebAuthnChallenge, type UserVerification } from './checks/webauthn';
import { createSession, getSession } from './sessions';
import type { LoginUser } from './users';

/**
 * The hosted login's passkey sign-in without a login name: a session of this browser (its user-agent
 * hash) without a user holds the WebAuthn challenge (user verification required, no allowCredentials:
 * the browser offers its discoverable credentials). Returns the session's id and the request options.
 */
export async function startPasskeySignIn(ctx: Ctx, userAgentHash: string, externalUrl: string, domain?: string) {
  const { id } = await createSession(ctx, { userAgentHash });
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
): Promise<{ user: LoginUser; sessionId: string }> {
  const session = await getSession(ctx.db, challengeId);
  if (!session || !userAgentHash || session.userAgentHash !== userAgentHash || session.userId)
    throw invalidArgument('Errors.Session.WebAuthN.NoChallenge', 'no passkey sign-in was started in this browser');
  const { user } = await checkWebAuthn(ctx, challengeId, undefined, { credential, externalUrl });
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
