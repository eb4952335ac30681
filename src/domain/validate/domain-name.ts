import { invalidArgument } from '../errors';
import type { KeyOf } from './key';

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/** A DNS host name without scheme or port, lower-cased. */
export function requireDomain(key: KeyOf, field: string, value: string | undefined): string {
  const v = (value ?? '').trim().toLowerCase();
  if (!v) throw invalidArgument(key(field, 'missing'), `${field} is required`);
  if (v.length > 253 || !v.split('.').every((l) => LABEL.test(l))) {
    throw invalidArgument(
      key(field, 'invalid'),
      `${field} must be a domain name such as "example.com" (no scheme, no port)`,
    );
  }
  return v;
}
