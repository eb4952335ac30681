// placeholder until the LDAP module lands
import type { ExternalUser } from '../external-user';
import type { LdapProviderConfig, LdapProviderSecrets } from './config';
export async function authenticate(
  _c: LdapProviderConfig,
  _s: LdapProviderSecrets,
  _u: string,
  _p: string,
): Promise<ExternalUser> {
  throw new Error('not yet');
}
