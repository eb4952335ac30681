import type { ClaimMapping, ExternalUser } from '../external-user';
import type { OAuthProviderConfig } from './config';

/** Where OpenID Connect's standard claims put each field when the provider's mapping says nothing. */
const STANDARD: Required<Omit<ClaimMapping, 'id'>> = {
  username: 'preferred_username',
  email: 'email',
  phone: 'phone_number',
  givenName: 'given_name',
  familyName: 'family_name',
  displayName: 'name',
  nickName: 'nickname',
  preferredLanguage: 'locale',
  avatarUrl: 'picture',
};

/** A claim by name, or by dotted path into nested JSON when no claim has the whole name. */
function claimAt(claims: Record<string, unknown>, path: string): unknown {
  if (path in claims) return claims[path];
  let v: unknown = claims;
  for (const part of path.split('.')) {
    if (!v || typeof v !== 'object' || Array.isArray(v)) return undefined;
    v = (v as Record<string, unknown>)[part];
  }
  return v;
}

/** Strings stay, numbers become strings (GitHub's numeric ids); anything else is absent. */
function asText(v: unknown): string | undefined {
  if (typeof v === 'string') return v === '' ? undefined : v;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  if (typeof v === 'bigint') return v.toString();
  return undefined;
}

/** Some upstreams (Apple among them) send booleans as the strings "true" / "false". */
const asserted = (v: unknown) => v === true || v === 'true';

/** Maps the upstream's claims to an ExternalUser; null when the claims carry no usable id. */
export function toExternalUser(config: OAuthProviderConfig, claims: Record<string, unknown>): ExternalUser | null {
  const idClaim = config.mapping.id ?? (config.protocol === 'oidc' ? 'sub' : (config.idAttribute ?? 'id'));
  const id = asText(claimAt(claims, idClaim));
  if (!id) return null;
  const user: ExternalUser = { id, emailVerified: false, raw: claims };
  for (const field of Object.keys(STANDARD) as (keyof typeof STANDARD)[]) {
    const value = asText(claimAt(claims, config.mapping[field] ?? STANDARD[field]));
    if (value !== undefined) user[field] = value;
  }
  if (user.email) {
    user.emailVerified = asserted(claims.email_verified) || config.emailVerifiedByProvider === true;
  }
  if (user.phone) user.phoneVerified = asserted(claims.phone_number_verified);
  return user;
}
