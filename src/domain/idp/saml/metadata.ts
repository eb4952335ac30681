// placeholder until the SAML module lands
import type { SamlEndpoints, SamlProviderConfig, SamlSpKeys } from './config';
export function spMetadata(_c: SamlProviderConfig, _k: SamlSpKeys, _e: SamlEndpoints): string {
  throw new Error('not yet');
}
export async function fetchIdpMetadata(_url: string, _timeoutMs: number): Promise<string> {
  throw new Error('not yet');
}
