/**
 * What an upstream identity provider says about the user who signed in there, in Portcullis's
 * terms. Every protocol (OpenID Connect, OAuth 2.0, SAML 2.0, LDAP) turns its answer into this, so
 * that linking, just-in-time creation and profile updates are one rule for all of them.
 */
export interface ExternalUser {
  /**
   * the upstream's stable id of the user: OIDC `sub`, the OAuth id attribute, the SAML NameID, the
   * LDAP id attribute
   */
  id: string;
  /** a login name the upstream knows the user by (preferred_username, login, uid…) */
  username?: string;
  email?: string;
  /** only true when the upstream asserts it (OIDC `email_verified: true`, or a provider that vouches) */
  emailVerified: boolean;
  phone?: string;
  phoneVerified?: boolean;
  givenName?: string;
  familyName?: string;
  displayName?: string;
  nickName?: string;
  preferredLanguage?: string;
  avatarUrl?: string;
  /** the claims or attributes exactly as the upstream sent them */
  raw: Record<string, unknown>;
}

/** Tokens an OpenID Connect / OAuth upstream issued at the sign-in (kept only when the provider says so). */
export interface UpstreamTokens {
  accessToken?: string;
  refreshToken?: string;
  idToken?: string;
  /** epoch seconds */
  expiresAt?: number;
}

/**
 * Which upstream claim or attribute fills which field of ExternalUser. A value is a claim name or a
 * dotted path into nested JSON (`name.givenName`); unset fields use the protocol's defaults.
 */
export type ClaimMapping = Partial<Record<MappedField, string>>;

/** The fields of ExternalUser a ClaimMapping can name, in the order the API lists them. */
export const MAPPED_FIELDS = [
  'id',
  'username',
  'email',
  'givenName',
  'familyName',
  'displayName',
  'nickName',
  'phone',
  'preferredLanguage',
  'avatarUrl',
] as const satisfies readonly (keyof ExternalUser)[];

export type MappedField = (typeof MAPPED_FIELDS)[number];
