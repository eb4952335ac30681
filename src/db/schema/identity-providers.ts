import { sql } from 'drizzle-orm';
import { index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

/** What a provider may do at sign-in, set per provider. */
export interface IdpOptions {
  /** a user signing in through it may be linked to an existing account */
  isLinkingAllowed: boolean;
  /** a user signing in through it may get a new account (by the login or a custom UI) */
  isCreationAllowed: boolean;
  /** a new account is created without asking the user first (just-in-time users) */
  isAutoCreation: boolean;
  /** the profile is updated from the provider at every sign-in */
  isAutoUpdate: boolean;
  /** an existing account is proposed for linking by its verified email or its username (the user confirms) */
  autoLinking: 'NONE' | 'EMAIL' | 'USERNAME';
  /** the provider's tokens are kept (encrypted) with the intent, for a custom UI that needs them */
  storeTokens: boolean;
  /**
   * instance providers only: EMAIL auto-linking links without the account's own credential (absent in
   * rows written before the option existed: off)
   */
  trustVerifiedEmail?: boolean;
}

/**
 * Upstream identity providers: OpenID Connect, OAuth 2.0, SAML 2.0 and LDAP, of the instance (org_id
 * null) or of one organization. `config` holds what is not secret and is returned by the API;
 * `secrets` is JSON encrypted under the master key (client secrets, private keys, bind passwords).
 */
export const identityProviders = pgTable(
  'identity_providers',
  {
    id: text('id').primaryKey(),
    /** null: a provider of the instance, offered to every organization */
    orgId: text('org_id'),
    name: text('name').notNull(),
    /** OIDC | OAUTH | SAML | LDAP */
    type: text('type').notNull(),
    /** GENERIC | GOOGLE | GITHUB | GITHUB_ENTERPRISE | GITLAB | GITLAB_SELF_HOSTED | AZURE_AD | APPLE */
    template: text('template').notNull().default('GENERIC'),
    /** ACTIVE | INACTIVE | REMOVED */
    state: text('state').notNull().default('ACTIVE'),
    config: jsonb('config').$type<Record<string, unknown>>().notNull(),
    secrets: text('secrets'),
    options: jsonb('options').$type<IdpOptions>().notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    changedAt: timestamp('changed_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    removedAt: timestamp('removed_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [index('identity_providers_org_idx').on(t.orgId)],
);

/** A user's account at an upstream provider, linked to the Portcullis user. */
export const idpLinks = pgTable(
  'idp_links',
  {
    idpId: text('idp_id').notNull(),
    /** the upstream's stable id of the user */
    externalUserId: text('external_user_id').notNull(),
    externalUsername: text('external_username').notNull().default(''),
    userId: text('user_id').notNull(),
    orgId: text('org_id').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [
    // One Portcullis user per upstream account: the link is how a sign-in finds its user.
    uniqueIndex('idp_links_external_uq').on(t.idpId, t.externalUserId),
    index('idp_links_user_idx').on(t.userId),
  ],
);

/**
 * One sign-in at an upstream: started by the hosted login or a custom UI, finished by the upstream's
 * callback, then used once (a session check, or the hosted login's sign-in). Lives minutes.
 */
export const idpIntents = pgTable(
  'idp_intents',
  {
    id: text('id').primaryKey(),
    idpId: text('idp_id').notNull(),
    /** STARTED | SUCCEEDED | FAILED | CONSUMED */
    state: text('state').notNull().default('STARTED'),
    /** SHA-256 of the `state` (OAuth) or RelayState (SAML) value sent upstream */
    stateHash: text('state_hash'),
    /** SHA-256 of the browser-binding cookie of the hosted login; null for a custom UI's intent */
    bindingHash: text('binding_hash'),
    /** the hosted login's auth request this sign-in continues */
    authRequestId: text('auth_request_id'),
    successUrl: text('success_url'),
    failureUrl: text('failure_url'),
    nonce: text('nonce'),
    codeVerifier: text('code_verifier'),
    /** SAML: the AuthnRequest's ID that the response must answer */
    samlRequestId: text('saml_request_id'),
    /** what the upstream said about the user, once it succeeded */
    externalUser: jsonb('external_user').$type<Record<string, unknown>>(),
    externalUserId: text('external_user_id'),
    /** the linked user, when the upstream account was linked at success */
    userId: text('user_id'),
    /** keyed hash of the intent token that a custom UI presents to retrieve or use the intent */
    tokenHash: text('token_hash'),
    /** the upstream's tokens, encrypted under the master key, when the provider keeps them */
    upstreamTokens: text('upstream_tokens'),
    failureReason: text('failure_reason'),
    attempts: integer('attempts').notNull().default(0),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (t) => [
    uniqueIndex('idp_intents_state_uq').on(t.stateHash).where(sql`${t.stateHash} is not null`),
    index('idp_intents_expires_idx').on(t.expiresAt),
  ],
);
