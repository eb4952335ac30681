import type { Principal } from '../../authz/principal';
import { permissionDenied } from '../errors';
import { OIDC_DEFAULTS, type OidcAppConfig } from './model';

/**
 * oidc.api_access makes an application an API client (domain/oidc/api-clients.ts): its users' tokens
 * may act on the API with their rights, an instance administrator's included. That is the instance's
 * decision, so turning it on or off needs iam.write. So does any change to an API client's
 * configuration: whoever may point its redirect URIs or its authentication elsewhere receives those
 * tokens (the console's client lives in the first organization, whose owners are not instance
 * administrators). A project's or organization's owner keeps every setting of its other applications,
 * and may send the current value unchanged.
 */
export function checkApiAccessChange(
  principal: Principal,
  before: OidcAppConfig | null | undefined,
  after: OidcAppConfig,
): void {
  const wasApiClient = before?.apiAccess ?? false;
  const toggled = wasApiClient !== (after.apiAccess ?? false);
  if (!toggled && !(wasApiClient && changesConfig(before, after))) return;
  if (principal.canInstance('iam.write')) return;
  throw permissionDenied(
    toggled
      ? 'oidc.api_access is set by instance administrators only (needs iam.write)'
      : 'an API client (oidc.api_access) is configured by instance administrators only (needs iam.write)',
  );
}

/** Whether any setting differs; a setting absent from an older row has its default. */
function changesConfig(before: OidcAppConfig | null | undefined, after: OidcAppConfig): boolean {
  const keys = new Set([...Object.keys(after), ...Object.keys(before ?? {})]) as Set<keyof OidcAppConfig>;
  const value = (c: OidcAppConfig | null | undefined, k: keyof OidcAppConfig) =>
    JSON.stringify(c?.[k] ?? OIDC_DEFAULTS[k] ?? null);
  return [...keys].some((k) => value(after, k) !== value(before, k));
}
