import type { SigningKey } from '../../crypto/keys/signing';
/** What token issuance needs from the process: the issuer (external URL) and the master key. */
export interface OidcEnv {
  issuer: string;
  masterKey: Buffer;
  /** PORTCULLIS_ASSERTION_MAX_LIFETIME in seconds (assertion-lifetime.ts) */
  assertionMaxLifetimeS: number;
  /**
   * The signing key, loaded BEFORE a transaction starts (withSigningKey): loading it inside one
   * would need a second connection, which PGlite does not have.
   */
  signingKey?: SigningKey;
}

/** Errors whose key starts with `OAuth.` carry the OAuth error code; oidc/errors.ts renders them. */
export const OAUTH_KEY_PREFIX = 'OAuth.';
