import type { Principal } from '../../authz/principal';
import { permissionDenied } from '../errors';
import type { OidcAppConfig } from './model';

/**
 * oidc.api_access makes an application an API client (domain/oidc/api-clients.ts): its users' tokens
 * may act on the API with their rights, an instance administrator's included. That is the instance's
 * decision, so turning it on or off needs iam.write; a project's or organization's owner may change
 * every other setting of its applications, and may send the current value unchanged.
 */
export function checkApiAccessChange(
  principal: Principal,
  before: Pick<OidcAppConfig, 'apiAccess'> | null | undefined,
  after: Pick<OidcAppConfig, 'apiAccess'>,
): void {
  if ((before?.apiAccess ?? false) === (after.apiAccess ?? false)) return;
  if (!principal.canInstance('iam.write'))
    throw permissionDenied('oidc.api_access is set by instance administrators only (needs iam.write)');
}
