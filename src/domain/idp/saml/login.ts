// placeholder until the SAML module lands
import type { ExternalUser } from '../external-user';
import type { SamlEndpoints, SamlProviderConfig, SamlSpKeys } from './config';
export async function startLogin(
  _c: SamlProviderConfig,
  _k: SamlSpKeys,
  _e: SamlEndpoints,
  _relayState: string,
): Promise<{ requestId: string; redirectUrl?: string; postForm?: { url: string; fields: Record<string, string> } }> {
  throw new Error('not yet');
}
export async function completeLogin(
  _c: SamlProviderConfig,
  _k: SamlSpKeys,
  _e: SamlEndpoints,
  _p: { samlResponse: string; expectedRequestId: string },
): Promise<ExternalUser> {
  throw new Error('not yet');
}
