import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/** One claim of the `claims` request parameter (OIDC Core §5.5.1); values kept only as strings. */
export interface ClaimRequest {
  essential?: boolean;
  value?: string;
  values?: string[];
}

/** The `claims` parameter as parsed (src/domain/oidc/claims-request.ts): the claims we act on, per place. */
export interface ClaimsRequest {
  id_token: Record<string, ClaimRequest>;
  userinfo: Record<string, ClaimRequest>;
}

/**
 * An authorization request between /oauth/v2/authorize and the callback: stored so that any replica
 * can continue it. The id is 128+ random bits; it is also what the login pages carry.
 */
export const authRequests = pgTable(
  'auth_requests',
  {
    id: text('id').primaryKey(),
    clientId: text('client_id').notNull(),
    applicationId: text('application_id').notNull(),
    redirectUri: text('redirect_uri').notNull(),
    /** `code` | `id_token` | `id_token token` */
    responseType: text('response_type').notNull(),
    /** query | fragment | form_post */
    responseMode: text('response_mode').notNull(),
    scopes: text('scopes').array().notNull(),
    state: text('state'),
    nonce: text('nonce'),
    codeChallenge: text('code_challenge'),
    prompt: text('prompt').array().notNull().default(sql`'{}'::text[]`),
    maxAge: integer('max_age'),
    /** acr_values of the request, in the client's order of preference */
    acrValues: text('acr_values').array().notNull().default(sql`'{}'::text[]`),
    loginHint: text('login_hint'),
    /** `sub` of a valid id_token_hint */
    hintUserId: text('hint_user_id'),
    /** RFC 8707 `resource` values of the request (null: none asked, the default audience applies) */
    resource: text('resource').array(),
    /** the `claims` parameter (OIDC Core §5.5) as parsed: only the claims we act on; null when not sent */
    claims: jsonb('claims').$type<ClaimsRequest>(),
    uiLocales: text('ui_locales').array().notNull().default(sql`'{}'::text[]`),
    /** RFC 9449 §10 `dpop_jkt`: the DPoP key the code must be redeemed with */
    dpopJkt: text('dpop_jkt'),
    /** organization the login is limited to (reserved org scope) */
    orgId: text('org_id'),
    /** login name typed on the first page (kept so the password page can show it) */
    loginName: text('login_name'),
    /** set when a session has been linked (hosted login or CreateCallback) */
    sessionId: text('session_id'),
    /** error chosen by a custom login UI through CreateCallback */
    error: text('error'),
    errorDescription: text('error_description'),
    /** SHA-256 of the key a custom login UI's callback URL carries (CreateCallback); null for the hosted login */
    callbackKeyHash: text('callback_key_hash'),
    /** the response has been sent; a second callback is refused */
    completedAt: timestamp('completed_at', { withTimezone: true, mode: 'date' }),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (t) => [index('auth_requests_expires_idx').on(t.expiresAt)],
);

/**
 * A grant ("OIDC session"): one user's consent for one client, from one login session. Codes,
 * access tokens and refresh tokens hang off it; revoking it revokes all of them.
 */
export const oidcGrants = pgTable(
  'oidc_grants',
  {
    id: text('id').primaryKey(),
    sessionId: text('session_id'),
    userId: text('user_id').notNull(),
    clientId: text('client_id').notNull(),
    applicationId: text('application_id').notNull(),
    projectId: text('project_id').notNull(),
    scopes: text('scopes').array().notNull(),
    audience: text('audience').array().notNull(),
    authTime: timestamp('auth_time', { withTimezone: true, mode: 'date' }),
    amr: text('amr').array().notNull().default(sql`'{}'::text[]`),
    /** refresh tokens of this grant stop working after this time, whatever their idle expiry */
    absoluteExpiresAt: timestamp('absolute_expires_at', { withTimezone: true, mode: 'date' }),
    /** impersonation (token exchange): the acting user and the client it acted through; refreshed tokens keep `act` */
    actorUserId: text('actor_user_id'),
    actorClientId: text('actor_client_id'),
    /** the `claims` parameter of the authorization request: the ID tokens and userinfo of the grant answer it */
    claims: jsonb('claims').$type<ClaimsRequest>(),
    revokedAt: timestamp('revoked_at', { withTimezone: true, mode: 'date' }),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [index('oidc_grants_session_idx').on(t.sessionId), index('oidc_grants_user_idx').on(t.userId)],
);

/** Authorization codes: only the SHA-256 is stored; single use, bound to client, redirect URI, PKCE, nonce. */
export const authCodes = pgTable(
  'auth_codes',
  {
    codeHash: text('code_hash').primaryKey(),
    grantId: text('grant_id').notNull(),
    clientId: text('client_id').notNull(),
    redirectUri: text('redirect_uri').notNull(),
    codeChallenge: text('code_challenge'),
    nonce: text('nonce'),
    /** RFC 9449 §10: the code is redeemed only with a DPoP proof of this key */
    dpopJkt: text('dpop_jkt'),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [index('auth_codes_expires_idx').on(t.expiresAt)],
);

/**
 * Every access token issued, JWT or opaque (`token_hash` set only for opaque ones), so that
 * introspection and userinfo see revocation, logout and user state on every replica.
 */
export const accessTokens = pgTable(
  'access_tokens',
  {
    /** the `jti` */
    id: text('id').primaryKey(),
    tokenHash: text('token_hash'),
    grantId: text('grant_id'),
    sessionId: text('session_id'),
    refreshTokenId: text('refresh_token_id'),
    userId: text('user_id').notNull(),
    clientId: text('client_id').notNull(),
    projectId: text('project_id'),
    scopes: text('scopes').array().notNull(),
    audience: text('audience').array().notNull(),
    /** the user had an authorization on the project when the token was issued: it must still exist */
    authorizationBound: boolean('authorization_bound').notNull().default(false),
    /** actor of an impersonation (token exchange), null otherwise */
    actorUserId: text('actor_user_id'),
    /** RFC 9449: the JWK SHA-256 thumbprint of the DPoP key the token is bound to; null for a bearer token */
    jkt: text('jkt'),
    /** user claims the grant's `claims` parameter asked for at userinfo, beyond the scopes' (OIDC Core §5.5) */
    userinfoClaims: text('userinfo_claims').array(),
    issuedAt: timestamp('issued_at', { withTimezone: true, mode: 'date' }).notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    revokedAt: timestamp('revoked_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [
    index('access_tokens_hash_idx').on(t.tokenHash),
    index('access_tokens_grant_idx').on(t.grantId),
    index('access_tokens_session_idx').on(t.sessionId),
    index('access_tokens_refresh_idx').on(t.refreshTokenId),
    index('access_tokens_expires_idx').on(t.expiresAt),
  ],
);

/** Refresh tokens: hash only; rotated on every use (`used_at`), reuse revokes the grant. */
export const refreshTokens = pgTable(
  'refresh_tokens',
  {
    id: text('id').primaryKey(),
    tokenHash: text('token_hash').notNull(),
    grantId: text('grant_id').notNull(),
    clientId: text('client_id').notNull(),
    userId: text('user_id').notNull(),
    scopes: text('scopes').array().notNull(),
    /**
     * RFC 9449 §5: the DPoP key thumbprint a public client's refresh token is bound to (a refresh then
     * needs a proof with that key); null when unbound
     */
    jkt: text('jkt'),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true, mode: 'date' }),
    revokedAt: timestamp('revoked_at', { withTimezone: true, mode: 'date' }),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [index('refresh_tokens_hash_idx').on(t.tokenHash), index('refresh_tokens_grant_idx').on(t.grantId)],
);

/** `jti`s of client assertions already accepted, kept until the assertion expires (replay protection). */
export const usedAssertions = pgTable('used_assertions', {
  /** `<client_id>:<jti>` */
  id: text('id').primaryKey(),
  expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
});
