import { boolean, integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/** Instance settings that the OIDC layer and the login read (token lifetimes, policies). */
export interface InstanceSettings {
  accessTokenLifetimeSeconds: number;
  idTokenLifetimeSeconds: number;
  refreshTokenIdleSeconds: number;
  refreshTokenAbsoluteSeconds: number;
  passwordMinLength: number;
  passwordRequireUppercase: boolean;
  passwordRequireLowercase: boolean;
  passwordRequireNumber: boolean;
  passwordRequireSymbol: boolean;
  /** new passwords among the most commonly used ones are refused (src/domain/user/common-passwords.ts) */
  passwordBlockCommon: boolean;
  lockoutMaxPasswordAttempts: number;
  /** wrong second-factor codes (TOTP, email/SMS, recovery) in a row before the user is locked; 0: never */
  lockoutMaxOtpAttempts: number;
  impersonationAllowed: boolean;
  /** self-registration in the hosted login, for the default organization (others: their own policy, default no) */
  registrationAllowed: boolean;
  /** a verified email address that one user has is accepted as its login name */
  loginWithEmailAllowed: boolean;
  /**
   * login names are `<username>@<organization domain>`, so usernames are unique per organization;
   * when false (an organization may override), usernames are unique in the instance and login names alone
   */
  userLoginMustBeDomain: boolean;
  signingAlgorithm: 'RS256' | 'ES256' | 'EdDSA';
  /**
   * seconds in which a rate-limit token bucket refills completely; every limit below is a bucket's
   * size (0 turns it off)
   */
  rateLimitWindowSeconds: number;
  /** token endpoint requests per window naming one client id (authenticated or not) */
  tokenRateLimitPerClient: number;
  /** token endpoint requests per window from one source address */
  tokenRateLimitPerAddress: number;
  /** hosted login form posts per window from one source address */
  loginRateLimitPerAddress: number;
  /** key set requests per window from one source address */
  keysRateLimitPerAddress: number;
  /** dynamic client registration (RFC 7591): OFF, OPEN, or INITIAL_ACCESS_TOKEN (a bearer token needed) */
  dynamicRegistration: 'OFF' | 'OPEN' | 'INITIAL_ACCESS_TOKEN';
  /** the project self-registered clients are created in ('' while registration is off) */
  dynamicRegistrationProjectId: string;
  /** keyed hash of the initial access token ('' when none); the token itself is never stored */
  dynamicRegistrationInitialAccessTokenHash: string;
  /** RFC 7591 grant type names a self-registered client may ask for */
  dynamicRegistrationGrantTypes: string[];
  /** a self-registered client never issued a token is removed this long after registering; 0: never */
  dynamicRegistrationUnusedClientLifetimeSeconds: number;
  /** an https URL as client_id is resolved by fetching its client ID metadata document */
  clientIdMetadataDocuments: boolean;
  /** the project such clients belong to ('' while the documents are off) */
  clientIdMetadataDocumentsProjectId: string;
}

export const DEFAULT_INSTANCE_SETTINGS: InstanceSettings = {
  accessTokenLifetimeSeconds: 12 * 3600,
  idTokenLifetimeSeconds: 12 * 3600,
  refreshTokenIdleSeconds: 30 * 24 * 3600,
  refreshTokenAbsoluteSeconds: 90 * 24 * 3600,
  passwordMinLength: 8,
  passwordRequireUppercase: false,
  passwordRequireLowercase: false,
  passwordRequireNumber: false,
  passwordRequireSymbol: false,
  passwordBlockCommon: true,
  lockoutMaxPasswordAttempts: 10,
  lockoutMaxOtpAttempts: 5,
  impersonationAllowed: false,
  registrationAllowed: true,
  loginWithEmailAllowed: true,
  userLoginMustBeDomain: true,
  signingAlgorithm: 'RS256',
  // Per minute: far above what a person, an application or a resource server caching the key set
  // needs, far below what guessing or flooding needs (README "Rate limits").
  rateLimitWindowSeconds: 60,
  tokenRateLimitPerClient: 6000,
  tokenRateLimitPerAddress: 1200,
  loginRateLimitPerAddress: 300,
  keysRateLimitPerAddress: 600,
  dynamicRegistration: 'OFF',
  dynamicRegistrationProjectId: '',
  dynamicRegistrationInitialAccessTokenHash: '',
  dynamicRegistrationGrantTypes: ['authorization_code', 'refresh_token'],
  dynamicRegistrationUnusedClientLifetimeSeconds: 0,
  clientIdMetadataDocuments: false,
  clientIdMetadataDocumentsProjectId: '',
};

export const instances = pgTable('instances', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  domain: text('domain').notNull(),
  defaultOrgId: text('default_org_id').notNull().default(''),
  settings: jsonb('settings').$type<InstanceSettings>().notNull(),
  /** Singleton guard: exactly one instance row per installation, even when two replicas bootstrap. */
  singleton: boolean('singleton').notNull().default(true).unique(),
  sequence: integer('sequence').notNull().default(0),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  changedAt: timestamp('changed_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});

export const instanceDomains = pgTable('instance_domains', {
  domain: text('domain').primaryKey(),
  instanceId: text('instance_id').notNull(),
  generated: boolean('generated').notNull().default(false),
  trusted: boolean('trusted').notNull().default(false),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});
