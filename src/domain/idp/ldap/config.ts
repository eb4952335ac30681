import { X509Certificate } from 'node:crypto';
import { invalidArgument } from '../../errors';
import { type ClaimMapping, MAPPED_FIELDS } from '../external-user';

/** How Portcullis reaches an LDAP directory and finds a user there. */
export interface LdapProviderConfig {
  /** `ldap://host:389` or `ldaps://host:636`, tried in order until one answers */
  servers: string[];
  /** upgrade ldap:// connections with StartTLS before binding (ldaps:// servers are TLS already) */
  startTls: boolean;
  /** where users are searched (subtree) */
  baseDn: string;
  /** the service account that searches */
  bindDn: string;
  /** every one of these object classes must be on a user's entry, e.g. ['inetOrgPerson'] */
  userObjectClasses: string[];
  /** attributes the typed login name is matched against, any of them (OR), e.g. ['uid', 'mail'] */
  userFilters: string[];
  /** the attribute holding the user's stable id, e.g. 'entryUUID' or 'uid' */
  idAttribute: string;
  /** bound on connecting and on each operation, per server */
  timeoutSeconds: number;
  /** the CA (one or more PEM certificates) to trust for LDAPS and StartTLS instead of the system's */
  rootCaPem?: string;
  /** ExternalUser field -> LDAP attribute; fields left out use LDAP_DEFAULT_MAPPING */
  mapping: ClaimMapping;
}

/** Kept apart from the config so that it is stored encrypted and never returned by the API. */
export interface LdapProviderSecrets {
  bindPassword: string;
}

/** The attributes of inetOrgPerson (RFC 2798) that fill ExternalUser when the provider maps nothing else. */
export const LDAP_DEFAULT_MAPPING: ClaimMapping = {
  username: 'uid',
  email: 'mail',
  givenName: 'givenName',
  familyName: 'sn',
  displayName: 'cn',
  phone: 'telephoneNumber',
  preferredLanguage: 'preferredLanguage',
};

// the id is the provider's id_attribute, not a mapped field
const MAPPABLE = new Set<string>(MAPPED_FIELDS.filter((f) => f !== 'id'));

const MAX_SERVERS = 10;
const MAX_NAMES = 20;
const MAX_DN = 1024;
// RFC 4512 attribute descriptions and object class names: a keystring or a numeric OID.
const ATTRIBUTE = /^(?:[A-Za-z][A-Za-z0-9-]{0,63}|\d+(?:\.\d+){1,31})$/;

/** Checks a provider configuration from the API; errors name the API's field (`servers[0]`, `base_dn`). */
export function checkLdapConfig(c: unknown): LdapProviderConfig {
  const o = record(c, 'config');
  const servers = list(o.servers, 'servers', MAX_SERVERS).map((s, i) => checkServer(s, `servers[${i}]`));
  const rootCaPem = o.rootCaPem === undefined || o.rootCaPem === '' ? undefined : checkCa(o.rootCaPem);
  return {
    servers,
    startTls: bool(o.startTls ?? false, 'start_tls'),
    baseDn: dn(o.baseDn, 'base_dn'),
    bindDn: dn(o.bindDn, 'bind_dn'),
    userObjectClasses: list(o.userObjectClasses, 'user_object_classes', MAX_NAMES).map((n, i) =>
      attribute(n, `user_object_classes[${i}]`),
    ),
    userFilters: list(o.userFilters, 'user_filters', MAX_NAMES).map((n, i) => attribute(n, `user_filters[${i}]`)),
    idAttribute: attribute(o.idAttribute, 'id_attribute'),
    timeoutSeconds: timeout(o.timeoutSeconds),
    ...(rootCaPem ? { rootCaPem } : {}),
    mapping: mapping(o.mapping),
  };
}

function record(v: unknown, field: string): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw bad(`${field} must be an object`);
  return v as Record<string, unknown>;
}

function list(v: unknown, field: string, max: number): unknown[] {
  if (!Array.isArray(v) || v.length === 0) throw bad(`${field} needs at least one value`);
  if (v.length > max) throw bad(`${field} takes at most ${max} values`);
  return v;
}

function bool(v: unknown, field: string): boolean {
  if (typeof v !== 'boolean') throw bad(`${field} must be true or false`);
  return v;
}

function checkServer(v: unknown, field: string): string {
  let url: URL;
  try {
    url = new URL(String(v));
  } catch {
    throw bad(`${field} must be an ldap:// or ldaps:// URL`);
  }
  if (typeof v !== 'string' || (url.protocol !== 'ldap:' && url.protocol !== 'ldaps:') || !url.hostname) {
    throw bad(`${field} must be an ldap:// or ldaps:// URL`);
  }
  // The URL names only the server: a base DN, filter or credentials in it would be silently ignored.
  if (url.username || url.password || (url.pathname !== '' && url.pathname !== '/') || url.search || url.hash) {
    throw bad(`${field} must hold only scheme, host and port (the base DN and filters are separate fields)`);
  }
  return `${url.protocol}//${url.host}`;
}

function dn(v: unknown, field: string): string {
  if (typeof v !== 'string' || v.trim() === '') throw bad(`${field} is required`);
  if (v.length > MAX_DN) throw bad(`${field} is longer than ${MAX_DN} characters`);
  // Every RDN is attribute=value; a DN without one is a typo (a bare name, a URL) the server would reject.
  if (!/^\s*[A-Za-z0-9.-]+\s*=/.test(v) || v.includes('\0'))
    throw bad(`${field} must be a DN such as dc=example,dc=org`);
  return v.trim();
}

function attribute(v: unknown, field: string): string {
  if (typeof v !== 'string' || !ATTRIBUTE.test(v)) throw bad(`${field} must be an LDAP attribute name such as uid`);
  return v;
}

function timeout(v: unknown): number {
  if (v === undefined) return 10;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > 60) {
    throw bad('timeout_seconds must be a whole number from 1 to 60');
  }
  return v;
}

function checkCa(v: unknown): string {
  const blocks =
    typeof v === 'string' ? v.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) : null;
  if (!blocks) throw bad('root_ca_pem must hold one or more PEM certificates');
  for (const block of blocks) {
    try {
      new X509Certificate(block);
    } catch {
      throw bad('root_ca_pem holds a certificate that cannot be read');
    }
  }
  return v as string;
}

function mapping(v: unknown): ClaimMapping {
  if (v === undefined || v === null) return { ...LDAP_DEFAULT_MAPPING };
  const given = record(v, 'mapping');
  const out: ClaimMapping = { ...LDAP_DEFAULT_MAPPING };
  for (const [key, attr] of Object.entries(given)) {
    const field = `mapping.${snake(key)}`;
    if (key === 'id') throw bad(`${field} is set by id_attribute`);
    if (!MAPPABLE.has(key)) throw bad(`${field} is not a field of the external user`);
    if (attr === undefined) continue;
    out[key as keyof ClaimMapping] = attribute(attr, field);
  }
  return out;
}

const snake = (s: string) => s.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

const bad = (message: string) => invalidArgument('Errors.IdP.Ldap.InvalidConfig', message);
