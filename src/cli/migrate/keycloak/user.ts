import { type KeycloakCredential, mapOtp, mapPassword } from './credentials';

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

export type UserResult =
  | { kind: 'converted'; user: ImportHumanUser; metadata: ImportUserMetadata[]; algorithm?: string; warnings: string[] }
  | { kind: 'skipped'; reason: string; algorithm?: string };

/** Domain of the placeholder address given to users without email: `.invalid` can never deliver. */
export const PLACEHOLDER_EMAIL_DOMAIN = 'no-email.invalid';

/** `<user id>@no-email.invalid`, unverified: unique per user and obviously not a real address. */
export function placeholderEmail(userId: string): string {
  const local = userId.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 64) || 'user';
  return `${local}@${PLACEHOLDER_EMAIL_DOMAIN}`;
}

const text = (v: unknown) => (typeof v === 'string' ? v.trim() : '');

/** Maps one exported Keycloak user onto an import entry, or says why it is skipped. */
export function mapUser(raw: unknown, options: MapOptions): UserResult {
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

  let algorithm: string | undefined;
  if (passwordCredential) {
    const password = mapPassword(passwordCredential);
    algorithm = password.algorithm;
    if (password.kind === 'hash') user.user.hashedPassword = { value: password.value };
    else if (password.kind === 'plain') {
      user.user.password = password.value;
      warnings.push('plain-text password in the export: the server hashes it on import');
    } else if (!options.includeWithoutPassword) return { kind: 'skipped', reason: password.reason, algorithm };
    else warnings.push(`${password.reason}: imported without password`);
  } else if (!options.includeWithoutPassword) {
    const why = u.federationLink ? 'no password credential (federated user)' : 'no password credential';
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

  return { kind: 'converted', user, metadata: mapAttributes(id, attributes), algorithm, warnings };
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
    out.push({ id: userId, key, value: Buffer.from(value, 'utf8').toString('base64') });
  }
  return out;
}
