import { type KeycloakCredential, mapOtp, mapPassword } from './credentials';
import { type ImportUserLinkItem, idpIdOf } from './identity-providers';

/** Standard base64 of the text's UTF-8 bytes, without Buffer (this code runs in the browser too). */
const utf8Base64 = (text: string) =>
  btoa(Array.from(new TextEncoder().encode(text), (b) => String.fromCharCode(b)).join(''));

/** One entry of `humanUsers` in the v1 import body (protobuf JSON, camelCase). */
export interface ImportHumanUser {
  userId: string;
  user: {
    userName: string;
    profile: { firstName: string; lastName: string; displayName: string; preferredLanguage?: string };
    email: { email: string; isEmailVerified: boolean };
    hashedPassword?: { value: string };
    password?: string;
    passwordChangeRequired?: boolean;
    otpCode?: string;
  };
  state?: 'USER_STATE_INACTIVE';
}

/** One entry of `userMetadata`: value is bytes in protobuf, so base64 in JSON. */
export interface ImportUserMetadata {
  id: string;
  key: string;
  value: string;
}

export interface MapOptions {
  /** create users that have no usable password credential, without a password */
  includeWithoutPassword: boolean;
  /**
   * put before every Keycloak user id: user ids are unique in the whole instance, and copies of one
   * realm (or realms of servers that share ids) would otherwise collide; deterministic, so re-runs
   * still recognise what they imported
   */
  idPrefix?: string;
}

/** What mapping a user needs to know about the realm's identity providers. */
export interface LinkOptions {
  orgId: string;
  /**
   * false when the provider of this alias is known not to be imported (unsupported, disabled,
   * absent); true when it is, or when the realm's providers have not been read yet
   */
  linkable(alias: string): boolean;
}

export type UserResult =
  | {
      kind: 'converted';
      user: ImportHumanUser;
      metadata: ImportUserMetadata[];
      /** links to providers that are (or may be) imported, with the Keycloak alias of each */
      links: (ImportUserLinkItem & { alias: string })[];
      /** aliases of federated identities dropped because their provider is not imported */
      droppedLinks: string[];
      /** converted without a password because the user signs in through an identity provider */
      federatedOnly: boolean;
      algorithm?: string;
      warnings: string[];
    }
  | { kind: 'skipped'; reason: string; algorithm?: string };

/** Domain of the placeholder address given to users without email: `.invalid` can never deliver. */
export const PLACEHOLDER_EMAIL_DOMAIN = 'no-email.invalid';

/** `<user id>@no-email.invalid`, unverified: unique per user and obviously not a real address. */
function placeholderEmail(userId: string): string {
  const local = userId.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 64) || 'user';
  return `${local}@${PLACEHOLDER_EMAIL_DOMAIN}`;
}

const text = (v: unknown) => (typeof v === 'string' ? v.trim() : '');

/** The user's federated identities (`[{identityProvider, userId, userName}]`), split by whether they can be linked. */
function federatedLinks(userId: string, u: Record<string, unknown>, options: MapOptions & LinkOptions) {
  const links: (ImportUserLinkItem & { alias: string })[] = [];
  const dropped: string[] = [];
  for (const f of Array.isArray(u.federatedIdentities) ? u.federatedIdentities : []) {
    const alias = text(f?.identityProvider);
    const external = text(f?.userId);
    if (!alias || !external) continue;
    if (!options.linkable(alias)) {
      dropped.push(alias);
      continue;
    }
    links.push({
      alias,
      userId,
      idpId: idpIdOf(alias, options.orgId, options.idPrefix),
      providedUserId: external,
      providedUserName: text(f?.userName),
    });
  }
  return { links, dropped };
}

/** Maps one exported Keycloak user onto an import entry, or says why it is skipped. */
export function mapUser(raw: unknown, options: MapOptions & LinkOptions): UserResult {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return { kind: 'skipped', reason: 'not a user object' };
  const u = raw as Record<string, unknown>;
  const id = text(u.id) && `${options.idPrefix ?? ''}${text(u.id)}`;
  const username = text(u.username);
  if (!id) return { kind: 'skipped', reason: 'user without id' };
  if (!username) return { kind: 'skipped', reason: 'user without username' };
  if (u.serviceAccountClientId) return { kind: 'skipped', reason: 'service account (belongs to a client)' };

  const warnings: string[] = [];
  const credentials = (Array.isArray(u.credentials) ? u.credentials : []) as KeycloakCredential[];
  const passwordCredential = credentials.find((c) => c && String(c.type).toLowerCase() === 'password');
  const otpCredential = credentials.find((c) => c && ['otp', 'totp', 'hotp'].includes(String(c.type).toLowerCase()));

  const first = text(u.firstName);
  const last = text(u.lastName);
  const email = text(u.email);
  const attributes = (u.attributes && typeof u.attributes === 'object' ? u.attributes : {}) as Record<string, unknown>;
  const locale = Array.isArray(attributes.locale) ? text(attributes.locale[0]) : text(attributes.locale);

  const user: ImportHumanUser = {
    userId: id,
    user: {
      userName: username,
      profile: {
        firstName: first || username,
        lastName: last || username,
        displayName: `${first} ${last}`.trim() || username,
        ...(locale ? { preferredLanguage: locale } : {}),
      },
      email: email
        ? { email, isEmailVerified: u.emailVerified === true }
        : { email: placeholderEmail(id), isEmailVerified: false },
    },
  };
  if (!email) warnings.push(`no email: imported with the placeholder ${user.user.email.email}`);

  // A user who signs in through an identity provider needs no password here.
  const { links, dropped } = federatedLinks(id, u, options);
  const federated = links.length > 0;
  let federatedOnly = false;
  let algorithm: string | undefined;
  if (passwordCredential) {
    const password = mapPassword(passwordCredential);
    algorithm = password.algorithm;
    if (password.kind === 'hash') user.user.hashedPassword = { value: password.value };
    else if (password.kind === 'plain') {
      user.user.password = password.value;
      warnings.push('plain-text password in the export: the server hashes it on import');
    } else if (federated) {
      federatedOnly = true;
      warnings.push(`${password.reason}: imported without password (signs in through an identity provider)`);
    } else if (!options.includeWithoutPassword) return { kind: 'skipped', reason: password.reason, algorithm };
    else warnings.push(`${password.reason}: imported without password`);
  } else if (federated) {
    federatedOnly = true;
  } else if (!options.includeWithoutPassword) {
    const why = dropped.length
      ? `no password credential (identity provider not imported: ${[...new Set(dropped)].sort().join(', ')})`
      : u.federationLink
        ? 'no password credential (federated user)'
        : 'no password credential';
    return { kind: 'skipped', reason: why };
  }

  if (Array.isArray(u.requiredActions) && u.requiredActions.includes('UPDATE_PASSWORD'))
    user.user.passwordChangeRequired = true;
  if (otpCredential) {
    const otp = mapOtp(otpCredential);
    if (otp.kind === 'totp') user.user.otpCode = otp.secret;
    else warnings.push(`OTP not imported: ${otp.reason}`);
  }
  if (u.enabled === false) user.state = 'USER_STATE_INACTIVE';

  return {
    kind: 'converted',
    user,
    metadata: mapAttributes(id, attributes),
    links,
    droppedLinks: dropped,
    federatedOnly,
    algorithm,
    warnings,
  };
}

/**
 * Keycloak attributes are multi-valued; metadata holds one value per key. A single value is kept as
 * it is; several are stored as a JSON array. `locale` becomes the preferred language instead.
 */
function mapAttributes(userId: string, attributes: Record<string, unknown>): ImportUserMetadata[] {
  const out: ImportUserMetadata[] = [];
  for (const [key, raw] of Object.entries(attributes)) {
    if (key === 'locale') continue;
    const values = Array.isArray(raw) ? raw.map((v) => String(v)) : [String(raw)];
    if (values.length === 0) continue;
    const value = values.length === 1 ? values[0] : JSON.stringify(values);
    out.push({ id: userId, key, value: utf8Base64(value) });
  }
  return out;
}
