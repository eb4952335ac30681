import type { AppConfigInput } from '../application/model';
import type { CreateProviderInput } from '../idp/commands';
import type { IdpEnv } from '../idp/env';

/** What one import brings for one organization, already converted from the transport's shape. */
export interface ImportOrg {
  orgId: string;
  /** required when the organization does not exist yet */
  name?: string;
  humanUsers: ImportHuman[];
  machineUsers: ImportMachine[];
  userMetadata: ImportMetadata[];
  projects: ImportProject[];
  projectRoles: ImportProjectRole[];
  apps: ImportApp[];
  userGrants: ImportUserGrant[];
  domains: ImportDomain[];
  orgMembers: ImportOrgMember[];
  /** identity providers of the organization, created before the links */
  idps: ImportIdp[];
  /** users' accounts at identity providers, linked after the users and providers are in */
  userLinks: ImportUserLink[];
  /** sections this version does not import; each item is reported as an error */
  unsupported: { type: string; id: string }[];
}

export interface ImportProject {
  projectId: string;
  name: string;
  projectRoleAssertion?: boolean;
  authorizationRequired?: boolean;
  projectAccessRequired?: boolean;
}

export interface ImportProjectRole {
  projectId: string;
  key: string;
  displayName: string;
  group?: string;
}

export interface ImportApp {
  kind: 'oidc_app' | 'api_app';
  appId: string;
  projectId: string;
  name: string;
  /** the application's configuration, or the error key of a configuration the transport could not read */
  config: AppConfigInput | { invalid: string };
}

export interface ImportUserGrant {
  userId: string;
  projectId: string;
  roleKeys: string[];
}

export interface ImportDomain {
  domain: string;
  verified: boolean;
  primary: boolean;
}

export interface ImportOrgMember {
  userId: string;
  roles: string[];
}

/** An identity provider of the organization, under the id the body gives it (links refer to it). */
export interface ImportIdp {
  idpId: string;
  /** what prepareProvider checks, or the error key of a provider the transport could not read */
  provider: Omit<CreateProviderInput, 'orgId'> | { invalid: string };
}

/** A user's account at an identity provider. */
export interface ImportUserLink {
  userId: string;
  idpId: string;
  externalUserId: string;
  externalUsername: string;
}

export interface ImportHuman {
  /** generated when absent (then a re-run cannot recognise the user) */
  userId?: string;
  username: string;
  firstName: string;
  lastName: string;
  nickName?: string;
  displayName?: string;
  preferredLanguage?: string;
  gender?: string;
  email: string;
  emailVerified: boolean;
  phone?: string;
  phoneVerified: boolean;
  /** plain password, hashed with argon2id by the import */
  password?: string;
  /** hash in a supported format, stored as given */
  passwordHash?: string;
  passwordChangeRequired: boolean;
  /** TOTP secret (base32), as the migration tool writes it */
  otpSecret?: string;
  /** ACTIVE | INACTIVE | LOCKED; default: INITIAL without password and verified email, else ACTIVE */
  state?: 'ACTIVE' | 'INACTIVE' | 'LOCKED';
}

export interface ImportMachine {
  userId?: string;
  username: string;
  name: string;
  description?: string;
  accessTokenType: 'BEARER' | 'JWT';
}

export interface ImportMetadata {
  userId: string;
  key: string;
  /** base64, as user metadata is stored */
  value: string;
}

export interface ImportOptions {
  /** epoch ms after which no organization is started and the running one is rolled back */
  deadline?: number;
  /** the master key and external URL identity providers need; without it the body's idps are refused */
  idp?: IdpEnv;
}

export interface ImportError {
  /** kind of item: org, human_user, machine_user, user_metadata, … */
  type: string;
  id: string;
  /** stable error key such as `Errors.Org.AlreadyExisting` */
  key: string;
}

export interface ImportedOrg {
  orgId: string;
  humanUserIds: string[];
  machineUserIds: string[];
  userMetadata: { userId: string; key: string }[];
  projectIds: string[];
  projectRoles: { projectId: string; key: string }[];
  oidcAppIds: string[];
  apiAppIds: string[];
  userGrants: { userId: string; projectId: string }[];
  domains: string[];
  orgMembers: string[];
  idpIds: string[];
  userLinks: { userId: string; idpId: string; externalUserId: string }[];
}

export interface ImportResult {
  orgs: ImportedOrg[];
  errors: ImportError[];
}
