import type { OidcAppConfig } from '../../db/schema/index';
import { API_AUDIENCE, API_AUDIENCE_SCOPE } from './scopes';

/**
 * The API audience is the instance's to give. A user's access token reaches the API only when it was
 * issued to an API client: the console's client, or an application an instance owner marked with
 * oidc.api_access. Any other client (a tenant's relying party, a self-registered or metadata-document
 * client, a device) that asks for the API audience scope is answered as for an unknown scope: the scope
 * is dropped. Otherwise every application an administrator signs in to would hold the administrator's
 * rights on the API.
 */
export function isApiClient(client: { oidc?: Pick<OidcAppConfig, 'apiAccess'> | null } | undefined): boolean {
  return client?.oidc?.apiAccess === true;
}

/** The scopes a client may be granted out of the known ones it asked for. */
export function grantableScopes(client: Parameters<typeof isApiClient>[0], scopes: string[]): string[] {
  return isApiClient(client) ? scopes : scopes.filter((s) => s !== API_AUDIENCE_SCOPE);
}

/** An audience a client may receive: the API only for an API client (token exchange reuses audiences). */
export function grantableAudience(client: Parameters<typeof isApiClient>[0], audience: string[]): string[] {
  return isApiClient(client) ? audience : audience.filter((a) => a !== API_AUDIENCE);
}
