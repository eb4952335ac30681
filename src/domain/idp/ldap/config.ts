// placeholder until the LDAP module lands
import type { ClaimMapping } from '../external-user';
export interface LdapProviderConfig {
  servers: string[];
  startTls: boolean;
  baseDn: string;
  bindDn: string;
  userObjectClasses: string[];
  userFilters: string[];
  idAttribute: string;
  timeoutSeconds: number;
  rootCaPem?: string;
  mapping: ClaimMapping;
}
export interface LdapProviderSecrets {
  bindPassword: string;
}
export function checkLdapConfig(c: unknown): LdapProviderConfig {
  return c as LdapProviderConfig;
}
