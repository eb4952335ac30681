import { invalidArgument } from '../errors';
import type { KeyOf } from './key';
import { requireText } from './text';

/**
 * A username (the part of a login name before `@<domain>`, or the whole login name): one-line text
 * without any whitespace, since a login form could not tell where it ends.
 */
export function requireUsername(key: KeyOf, field: string, value: string | undefined | null): string {
  const v = requireText(key, field, value, 200);
  if (/\s/.test(v)) throw invalidArgument(key(field, 'invalid'), `${field} must not contain whitespace`);
  return v;
}
