import type { Ctx } from '../context';
import { FACTORS, factorOfRow } from '../sign-in/factors';
import { hasRecoveryCodes, readyFactors } from '../session/policy-gap';
import { authorize, readUser, userNotFound } from '../user/access';

/** The kinds of factor a user can have, in the order ListAuthenticationMethodTypes answers them. */
const AUTH_METHOD_TYPES = ['PASSWORD', 'PASSKEY', 'TOTP', 'U2F', 'OTP_EMAIL', 'OTP_SMS', 'RECOVERY_CODES'] as const;
export type AuthMethodType = (typeof AUTH_METHOD_TYPES)[number];

/** A ready factor's method: WebAuthn by what it can do, the others by the policy's name of their factor. */
function methodOf(f: { type: string; passwordless: boolean }): AuthMethodType | undefined {
  if (f.type === 'webauthn') return f.passwordless ? 'PASSKEY' : 'U2F';
  const factor = factorOfRow(f.type);
  return factor ? FACTORS[factor].policy : undefined;
}

/**
 * ListAuthenticationMethodTypes: the kinds of factor the user has ready, each once. A WebAuthn
 * credential is a PASSKEY when it signs in without a password, else a U2F security key; pending
 * registrations do not count. Needs `user.read` on the user's organization, or being the user.
 */
export async function listAuthenticationMethodTypes(ctx: Ctx, userId: string): Promise<AuthMethodType[]> {
  const user = await readUser(ctx.db, userId);
  if (!user) throw userNotFound();
  authorize(ctx, user, 'user.read', { self: true });
  const found = new Set<AuthMethodType>();
  if (user.passwordHash) found.add('PASSWORD');
  for (const f of await readyFactors(ctx.db, userId)) {
    const type = methodOf(f);
    if (type) found.add(type);
  }
  if (await hasRecoveryCodes(ctx.db, userId)) found.add('RECOVERY_CODES');
  return AUTH_METHOD_TYPES.filter((t) => found.has(t));
}
