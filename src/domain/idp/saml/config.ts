// placeholder until the SAML module lands
import type { ClaimMapping } from '../external-user';
export type SamlNameIdFormat = 'unspecified' | 'emailAddress' | 'persistent' | 'transient';
export interface SamlProviderConfig {
  metadataXml: string;
  metadataUrl?: string;
  binding: 'redirect' | 'post';
  signRequests: boolean;
  nameIdFormat: SamlNameIdFormat;
  transientMappingAttributeName?: string;
  wantAssertionsSigned: boolean;
  mapping: ClaimMapping;
}
export interface SamlSpKeys {
  certificatePem: string;
  privateKeyPem: string;
}
export interface SamlEndpoints {
  entityId: string;
  acsUrl: string;
}
export function checkSamlConfig(c: unknown): SamlProviderConfig {
  return c as SamlProviderConfig;
}
export function generateSpKeys(_name: string): SamlSpKeys {
  return { certificatePem: '', privateKeyPem: '' };
}
