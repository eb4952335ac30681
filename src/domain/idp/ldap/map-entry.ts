import type { Entry } from 'ldapts';
import { DomainError } from '../../errors';
import type { ClaimMapping, ExternalUser } from '../external-user';
import type { LdapProviderConfig } from './config';

/** The attributes to ask the directory for: the id and every mapped one. */
export function attributesToRead(config: LdapProviderConfig): string[] {
  const names = [config.idAttribute, ...Object.values(config.mapping).filter((v): v is string => !!v)];
  return [...new Set(names.map((n) => n.toLowerCase()))].map((lower) => names.find((n) => n.toLowerCase() === lower)!);
}

/** Turns the user's entry into an ExternalUser; the first value of a multi-valued attribute wins. */
export function toExternalUser(config: LdapProviderConfig, entry: Entry): ExternalUser {
  const raw = rawAttributes(entry);
  const id = first(raw, config.idAttribute);
  if (!id) {
    throw new DomainError(
      'failed_precondition',
      'Errors.IdP.Ldap.NoId',
      `the user's LDAP entry has no ${config.idAttribute}, the provider's id attribute`,
    );
  }
  const user: ExternalUser = { id, emailVerified: false, raw };
  for (const [field, attribute] of Object.entries(config.mapping) as [keyof ClaimMapping, string][]) {
    if (field === 'id' || !attribute) continue;
    const value = first(raw, attribute);
    if (value !== undefined) user[field] = value;
  }
  return user;
}

// Attribute names are case-insensitive in LDAP and servers answer in their own spelling.
function first(raw: Record<string, string[]>, attribute: string): string | undefined {
  const key = Object.keys(raw).find((k) => k.toLowerCase() === attribute.toLowerCase());
  const value = key ? raw[key][0]?.trim() : undefined;
  return value || undefined;
}

function rawAttributes(entry: Entry): Record<string, string[]> {
  const raw: Record<string, string[]> = { dn: [entry.dn] };
  for (const [name, value] of Object.entries(entry)) {
    if (name === 'dn') continue;
    const values = Array.isArray(value) ? value : [value];
    raw[name] = values.map((v) => (Buffer.isBuffer(v) ? v.toString('utf8') : v));
  }
  return raw;
}
