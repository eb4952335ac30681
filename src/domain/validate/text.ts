import { invalidArgument } from '../errors';
import type { KeyOf } from './key';

// Control characters (NUL, line breaks, escapes) have no place in a name, an address or an id; the
// database cannot even store NUL. Free text (descriptions) may keep its line breaks and tabs.
function hasControl(v: string, keepLineBreaks = false): boolean {
  for (let i = 0; i < v.length; i++) {
    const c = v.charCodeAt(i);
    if (c === 0x7f || (c < 0x20 && !(keepLineBreaks && (c === 0x09 || c === 0x0a || c === 0x0d)))) return true;
  }
  return false;
}

/** A one-line text that must be there: trimmed, at most `max` characters, no control characters. */
export function requireText(key: KeyOf, field: string, value: string | undefined | null, max = 200): string {
  const v = value?.trim() ?? '';
  if (!v) throw invalidArgument(key(field, 'missing'), `${field} is required`);
  if (v.length > max) throw invalidArgument(key(field, 'invalid'), `${field} must be at most ${max} characters`);
  if (hasControl(v)) throw invalidArgument(key(field, 'invalid'), `${field} must not contain control characters`);
  return v;
}

/** Free text that may be left out or empty (a description): trimmed, may keep line breaks and tabs. */
export function optionalFreeText(
  key: KeyOf,
  field: string,
  value: string | undefined | null,
  max = 200,
): string | undefined {
  if (value === undefined || value === null) return undefined;
  const v = value.trim();
  if (v.length > max) throw invalidArgument(key(field, 'invalid'), `${field} must be at most ${max} characters`);
  if (hasControl(v, true)) throw invalidArgument(key(field, 'invalid'), `${field} must not contain control characters`);
  return v;
}
