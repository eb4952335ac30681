import { index, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

/** The OIDC configuration of an application, as the OIDC layer reads it. */
export interface OidcAppConfig {
  redirectUris: string[];
  postLogoutRedirectUris: string[];
  /** CODE | ID_TOKEN | ID_TOKEN_TOKEN */
  responseTypes: string[];
  /** AUTHORIZATION_CODE | IMPLICIT | REFRESH_TOKEN | TOKEN_EXCHANGE | DEVICE_CODE */
  grantTypes: string[];
  /** WEB | USER_AGENT | NATIVE */
  applicationType: string;
  /** BASIC | POST | NONE | PRIVATE_KEY_JWT */
  authMethodType: string;
  /** BEARER (opaque) | JWT */
  accessTokenType: string;
  accessTokenRoleAssertion: boolean;
  idTokenRoleAssertion: boolean;
  idTokenUserinfoAssertion: boolean;
  clockSkewSeconds: number;
  developmentMode: boolean;
  additionalOrigins: string[];
  /**
   * OpenID Connect Back-Channel and Front-Channel Logout 1.0. Optional because configurations
   * saved before these settings existed lack them: absent means empty / false.
   */
  backchannelLogoutUri?: string;
  backchannelLogoutSessionRequired?: boolean;
  frontchannelLogoutUri?: string;
  frontchannelLogoutSessionRequired?: boolean;
  /**
   * RFC 9126: the authorization endpoint takes this client's requests only by a pushed request_uri.
   * Absent in rows written before the setting existed, which means false.
   */
  requirePushedAuthorizationRequests?: boolean;
  /** RFC 9449: tokens only against a DPoP proof, bound to its key. Absent means false. */
  dpopBoundAccessTokens?: boolean;
  /** NONE | FAPI_2_0: a profile the configuration and every request are checked against. Absent means NONE. */
  securityProfile?: string;
  /**
   * An API client: its users' access tokens may carry the API audience (the reserved API audience
   * scope). Only instance owners (iam.write) set it; the console's client has it. Absent means false.
   */
  apiAccess?: boolean;
}

export interface SamlAppConfig {
  metadataXml?: string;
  metadataUrl?: string;
}

export interface ApiAppConfig {
  /** BASIC | PRIVATE_KEY_JWT */
  authMethodType: string;
  /** RFC 8707 resource URI that names this API at authorize and token; unique in the instance */
  resourceUri?: string;
}

export const applications = pgTable(
  'applications',
  {
    id: text('id').primaryKey(),
    projectId: text('project_id').notNull(),
    /** organization owning the project */
    orgId: text('org_id').notNull(),
    name: text('name').notNull(),
    /** OIDC | SAML | API */
    type: text('type').notNull(),
    /** ACTIVE | INACTIVE | REMOVED */
    state: text('state').notNull().default('ACTIVE'),
    clientId: text('client_id'),
    /** keyed hash of the client secret (crypto/secrets.ts); null for public clients */
    secretHash: text('secret_hash'),
    oidc: jsonb('oidc').$type<OidcAppConfig>(),
    saml: jsonb('saml').$type<SamlAppConfig>(),
    api: jsonb('api').$type<ApiAppConfig>(),
    /**
     * keyed hash of the RFC 7592 registration access token of a self-registered client; null for
     * clients created through the API
     */
    registrationTokenHash: text('registration_token_hash'),
    /** when a self-registered client was first issued a token (null: never; the unused-client cleanup) */
    firstTokenAt: timestamp('first_token_at', { withTimezone: true, mode: 'date' }),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    changedAt: timestamp('changed_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('applications_client_id_uq').on(t.clientId),
    index('applications_project_idx').on(t.projectId),
    // ListApplications by organization, in creation order
    index('applications_org_idx').on(t.orgId, t.createdAt),
  ],
);

/** Public keys of applications for private_key_jwt client authentication. */
export const applicationKeys = pgTable(
  'application_keys',
  {
    id: text('id').primaryKey(),
    applicationId: text('application_id').notNull(),
    clientId: text('client_id').notNull(),
    /** SPKI PEM */
    publicKey: text('public_key').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [index('application_keys_client_idx').on(t.clientId)],
);
