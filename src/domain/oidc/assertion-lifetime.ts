/** Tolerated clock difference between the signer and us. */
export const ASSERTION_CLOCK_SKEW_S = 5;

/**
 * The lifetime rule of the JWTs clients sign for us (private_key_jwt client assertions and JWT
 * profile grants): `exp` is required and at most `maxLifetimeS` ahead, `iat` (when present, and it
 * must be for `requireIat`) neither in the future nor older than `maxLifetimeS`. An assertion valid
 * for a year would otherwise be a long-lived credential, and its replay entry would be kept as long.
 * Returns what is wrong, or undefined.
 */
export function assertionLifetimeProblem(
  claims: { exp?: unknown; iat?: unknown },
  maxLifetimeS: number,
  opts: { requireIat: boolean },
  nowS = Date.now() / 1000,
): string | undefined {
  if (typeof claims.exp !== 'number') return 'exp is missing';
  if (claims.exp > nowS + maxLifetimeS + ASSERTION_CLOCK_SKEW_S)
    return `exp is more than ${maxLifetimeS} seconds ahead`;
  if (claims.iat === undefined) return opts.requireIat ? 'iat is missing' : undefined;
  if (typeof claims.iat !== 'number') return 'iat is not a number';
  if (claims.iat > nowS + ASSERTION_CLOCK_SKEW_S) return 'iat is in the future';
  if (claims.iat < nowS - maxLifetimeS) return 'iat is too old';
  return undefined;
}
