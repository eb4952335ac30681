import { AndFilter, EqualityFilter, type Filter, OrFilter } from 'ldapts';
import type { LdapProviderConfig } from './config';

/**
 * `(&(objectClass=…)…(|(uid=<name>)(mail=<name>)…))` built from filter objects, never from strings:
 * ldapts sends each value as its own BER octet string, so `*`, `(`, `)`, `\` and NUL in a login
 * name are compared literally by the server and cannot change the filter's structure.
 */
export function userFilter(config: LdapProviderConfig, loginName: string): Filter {
  return new AndFilter({
    filters: [
      ...config.userObjectClasses.map((value) => new EqualityFilter({ attribute: 'objectClass', value })),
      new OrFilter({
        filters: config.userFilters.map((attribute) => new EqualityFilter({ attribute, value: loginName })),
      }),
    ],
  });
}
