import type { AuthenticationResponseJSON, PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import { and, eq, sql } from 'drizzle-orm';
import { type SessionChallenges, sessions, userFactors } from '../../../db/schema/index';
import type { Ctx } from '../../context';
import { failedPrecondition, invalidArgument, notFound } from '../../errors';
import { execute, type UnitOfWork } from '../../execute';
import { relyingParty } from '../../user/factors/relying-party';
import { webauthnLibrary } from '../../user/factors/webauthn-library';
import { CEREMONY_TIMEOUT_MS, fromBase64Url, readyPasskeys } from '../../user/factors/webauthn';
import { recordFactorCheck, withoutChallenge } from '../factors';
import { live } from '../live';
import { PASSWORD_SIGN_IN, signInRefusal } from '../may-sign-in';
import type { Session } from '../sessions';
import { findUserById, type LoginUser } from '../users';

export type UserVerification = 'required' | 'preferred' | 'discouraged';

/** A WebAuthn challenge asked of a session: for which domain, and whether the user must be verified. */
export interface WebAuthnChallengeRequest {
  /** a domain of the instance (the RP id); empty: the instance's domain */
  domain?: string;
  userVerification: UserVerification;
  /** PORTCULLIS_EXTERNAL_URL: the expected origins are derived from it (domain/user/factors/relying-party.ts) */
  externalUrl: string;
}

/** A WebAuthn assertion to check: the browser's `AuthenticationResponseJSON`. */
export interface WebAuthnCheck {
  credential: unknown;
  externalUrl: string;
  /** a passkey sign-in of the hosted login: the auth request it signs the user in for */
  authRequest?: string;
}

const invalid = (why: string) => invalidArgument('Errors.Session.WebAuthN.Invalid', `checks.web_auth_n: ${why}`);

/**
 * Opens a WebAuthn challenge on a session (replacing an earlier one) and returns the options for
 * navigator.credentials.get(). For a session that names a user, `allowCredentials` lists the user's
 * credentials of the RP id; for one without a user it is empty: the browser offers the discoverable
 * credentials (passkeys) it holds for the RP id, and the answer names the user.
 */
export async function openWebAuthnChallenge(
  work: UnitOfWork,
  sessionId: string,
  user: LoginUser | undefined,
  req: WebAuthnChallengeRequest,
): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const rp = await relyingParty(work.tx, work.ctx.instanceId, req.externalUrl, req.domain);
  const credentials = user ? await readyPasskeys(work.tx, user.id, rp.id) : [];
  const { generateAuthenticationOptions } = await webauthnLibrary();
  const options = await generateAuthenticationOptions({
    rpID: rp.id,
    timeout: CEREMONY_TIMEOUT_MS,
    userVerification: req.userVerification,
    allowCredentials: credentials.map((c) => ({ id: c.credentialId!, transports: c.transports ?? undefined })),
  });
  const challenge: SessionChallenges['webAuthN'] = {
    challenge: options.challenge,
    rpId: rp.id,
    userVerification: req.userVerification,
    expiresAt: new Date(Date.now() + CEREMONY_TIMEOUT_MS).toISOString(),
  };
  await work.load('session', sessionId);
  await work.tx
    .update(sessions)
    .set({ challenges: sql`${sessions.challenges} || ${JSON.stringify({ webAuthN: challenge })}::jsonb` })
    .where(and(eq(sessions.id, sessionId), live()));
  return options;
}

/**
 * checks.web_auth_n: the assertion must answer the session's open WebAuthn challenge (which it then
 * closes: an answer counts once), come from an origin of the challenge's RP id, be signed by a ready
 * credential of that RP id, verify the user when the challenge required it, and carry a signature
 * counter greater than the stored one whenever either is nonzero (otherwise the authenticator was
 * cloned). A session that names a user accepts only that user's credentials; one without a user
 * learns its user from the credential (a passkey sign-in). Returns the session and its user.
 */
export async function checkWebAuthn(
  ctx: Ctx,
  sessionId: string,
  sessionUser: LoginUser | undefined,
  check: WebAuthnCheck,
): Promise<{ session: Session; user: LoginUser }> {
  const response = assertion(check.credential);
  return execute(ctx, async (work) => {
    await work.load('session', sessionId);
    const [row] = await work.tx
      .select({ challenges: sessions.challenges, userId: sessions.userId })
      .from(sessions)
      .where(and(eq(sessions.id, sessionId), live()))
      .for('update');
    if (!row) throw notFound('Errors.Session.NotFound', 'session not found');
    const challenge = row.challenges.webAuthN;
    if (!challenge || Date.parse(challenge.expiresAt) < Date.now())
      throw failedPrecondition(
        'Errors.Session.WebAuthN.NoChallenge',
        'checks.web_auth_n needs an open web_auth_n challenge of this session',
      );
    const [factor] = await work.tx
      .select()
      .from(userFactors)
      .where(
        and(
          eq(userFactors.credentialId, response.id),
          eq(userFactors.type, 'webauthn'),
          eq(userFactors.state, 'ready'),
        ),
      );
    const expectedUser = sessionUser?.id ?? row.userId;
    if (!factor?.publicKey || (expectedUser && factor.userId !== expectedUser))
      throw invalid('the credential is not registered for this user');
    const handle = response.response.userHandle;
    if (handle && Buffer.from(handle, 'base64url').toString('utf8') !== factor.userId)
      throw invalid('the user handle does not belong to the credential');
    if (factor.rpId !== challenge.rpId) throw invalid('the credential belongs to another domain');
    const user = sessionUser?.id === factor.userId ? sessionUser : await findUserById(work.tx, factor.userId);
    if (!user) throw invalid('the credential is not registered for this user');
    const refusal = signInRefusal(user, PASSWORD_SIGN_IN);
    if (refusal) throw failedPrecondition('Errors.User.NotActive', refusal);
    const rp = await relyingParty(work.tx, ctx.instanceId, check.externalUrl, challenge.rpId);
    const { verifyAuthenticationResponse } = await webauthnLibrary();
    const result = await verifyAuthenticationResponse({
      response,
      expectedChallenge: challenge.challenge,
      expectedOrigin: rp.origins,
      expectedRPID: rp.id,
      requireUserVerification: challenge.userVerification === 'required',
      credential: {
        id: factor.credentialId!,
        publicKey: fromBase64Url(factor.publicKey),
        counter: factor.signCount,
        transports: factor.transports ?? undefined,
      },
    }).catch((err: Error) => {
      if (/counter/i.test(err.message))
        throw failedPrecondition(
          'Errors.Session.WebAuthN.Counter',
          'checks.web_auth_n: the signature counter did not increase (a cloned authenticator?)',
        );
      throw invalid(err.message);
    });
    const { newCounter, userVerified } = result.authenticationInfo;
    if (!result.verified) throw invalid('the assertion was not verified');
    if ((newCounter > 0 || factor.signCount > 0) && newCounter <= factor.signCount)
      throw failedPrecondition(
        'Errors.Session.WebAuthN.Counter',
        'checks.web_auth_n: the signature counter did not increase',
      );
    // Only against the counter read above: of two answers with the same counter one wins.
    const [won] = await work.tx
      .update(userFactors)
      .set({ signCount: newCounter, lastUsedAt: new Date() })
      .where(and(eq(userFactors.id, factor.id), eq(userFactors.signCount, factor.signCount)))
      .returning({ id: userFactors.id });
    if (!won)
      throw failedPrecondition(
        'Errors.Session.WebAuthN.Counter',
        'checks.web_auth_n: the signature counter did not increase',
      );
    await work.tx
      .update(sessions)
      .set({ challenges: withoutChallenge('webAuthN') })
      .where(eq(sessions.id, sessionId));
    const session = await recordFactorCheck(work, sessionId, user, 'webAuthN', {
      userVerified,
      synced: factor.backupEligible,
      ...(check.authRequest ? { authRequest: check.authRequest } : {}),
    });
    return { session, user };
  });
}

/** The browser's credential as an AuthenticationResponseJSON, or INVALID_ARGUMENT. */
function assertion(value: unknown): AuthenticationResponseJSON {
  const v = value as Partial<AuthenticationResponseJSON> | null;
  if (
    !v ||
    typeof v !== 'object' ||
    typeof v.id !== 'string' ||
    typeof v.rawId !== 'string' ||
    typeof v.response?.clientDataJSON !== 'string' ||
    typeof v.response?.authenticatorData !== 'string' ||
    typeof v.response?.signature !== 'string'
  )
    throw invalid(
      'credential_assertion_data must be an AuthenticationResponseJSON (id, rawId, response.clientDataJSON, ' +
        'response.authenticatorData, response.signature, type)',
    );
  return {
    ...v,
    type: 'public-key',
    clientExtensionResults: v.clientExtensionResults ?? {},
  } as AuthenticationResponseJSON;
}
