import { invalidArgument } from '../errors';

/**
 * Input checks shared by the user commands. Each error names the field as the v2 API spells it
 * (e.g. `human.profile.given_name`), so a caller knows what to fix.
 */
const KEY = 'Errors.User.Invalid';

// Control characters (NUL, line breaks, escapes) have no place in a name, an address or an id; the
// database cannot even store NUL. Refused here, each becomes that field's error (and, in the bulk
// import, that user's errors[] entry instead of a failed request).
// Free text (descriptions) may keep its line breaks and tabs.
function hasControl(v: string, keepLineBreaks = false): boolean {
  for (let i = 0; i < v.length; i++) {
    const c = v.charCodeAt(i);
    if (c === 0x7f || (c < 0x20 && !(keepLineBreaks && (c === 0x09 || c === 0x0a || c === 0x0d)))) return true;
  }
  return false;
}

export function requireText(field: string, value: string | undefined | null, max = 200): string {
  const v = value?.trim() ?? '';
  if (!v) throw invalidArgument(KEY, `${field} is required`);
  if (v.length > max) throw invalidArgument(KEY, `${field} must be at most ${max} characters`);
  if (hasControl(v)) throw invalidArgument(KEY, `${field} must not contain control characters`);
  return v;
}

export function optionalText(field: string, value: string | undefined | null, max = 200): string | undefined {
  if (value === undefined || value === null) return undefined;
  const v = value.trim();
  if (v.length > max) throw invalidArgument(KEY, `${field} must be at most ${max} characters`);
  if (hasControl(v, true)) throw invalidArgument(KEY, `${field} must not contain control characters`);
  return v;
}

export function checkId(field: string, value: string | undefined | null): string {
  const v = requireText(field, value, 200);
  if (!/^[A-Za-z0-9_.@-]+$/.test(v)) throw invalidArgument(KEY, `${field} may contain only letters, digits and _ . @ -`);
  return v;
}

export function checkUsername(field: string, value: string | undefined | null): string {
  const v = requireText(field, value, 200);
  if (/\s/.test(v)) throw invalidArgument(KEY, `${field} must not contain whitespace`);
  return v;
}

// A pragmatic address check: one @, no spaces or brackets in the local part, a dotted host name.
// RFC 5321: the domain is one or more labels, so `admin@localhost` is an address (real exports have
// them); no quoted local parts, spaces or angle brackets.
const EMAIL = /^[^\s@"<>()[\],;:\\]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

/** The one email rule of every API, the import and the organization's first administrator. */
export function isEmailAddress(v: string): boolean {
  return v.length <= 320 && EMAIL.test(v);
}

export function checkEmail(field: string, value: string | undefined | null): string {
  const v = requireText(field, value, 200);
  if (!isEmailAddress(v)) throw invalidArgument(KEY, `${field} is not a valid email address`);
  return v;
}

export function checkPhone(field: string, value: string | undefined | null): string {
  const v = requireText(field, value, 200);
  if (!/^\+?[0-9 ()-]{3,}$/.test(v) || !/[0-9]/.test(v)) throw invalidArgument(KEY, `${field} is not a valid phone number`);
  return v;
}

export function checkLanguage(field: string, value: string | undefined): string | undefined {
  if (value === undefined || value === '') return value === '' ? '' : undefined;
  if (!/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/.test(value)) throw invalidArgument(KEY, `${field} must be a language tag such as "en" or "de-CH"`);
  return value;
}

export function checkUrlTemplate(field: string, value: string | undefined): string | undefined {
  if (value === undefined || value === '') return undefined;
  if (value.length > 2000) throw invalidArgument(KEY, `${field} must be at most 2000 characters`);
  let url: URL;
  try {
    url = new URL(value.replaceAll(/\{\{\.?\w+\}\}/g, 'x'));
  } catch {
    throw invalidArgument(KEY, `${field} is not a valid URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw invalidArgument(KEY, `${field} must be an http(s) URL`);
  return value;
}

export function checkFutureDate(field: string, value: Date | undefined): Date | undefined {
  if (!value) return undefined;
  if (Number.isNaN(value.getTime())) throw invalidArgument(KEY, `${field} is not a valid date`);
  if (value.getTime() <= Date.now()) throw invalidArgument(KEY, `${field} must be in the future`);
  return value;
}

export interface MetadataEntry {
  key: string;
  value: Uint8Array;
}

export function checkMetadata(field: string, entries: MetadataEntry[]): void {
  entries.forEach((m, i) => {
    requireText(`${field}[${i}].key`, m.key, 200);
    if (m.value.length === 0) throw invalidArgument(KEY, `${field}[${i}].value is required`);
    if (m.value.length > 500_000) throw invalidArgument(KEY, `${field}[${i}].value must be at most 500000 bytes`);
  });
}

/**
 * A machine user's username is its OAuth client id. It must not have the shape of a resource id
 * (digits only) or of an application's client id (`<id>@<project>`), so that no machine user can be
 * taken for a project or an application where client ids and audiences are compared.
 */
export function checkMachineUsername(field: string, value: string | undefined | null): string {
  const v = checkUsername(field, value);
  if (/^\d+$/.test(v) || /^[^@]+@[^@.]+$/.test(v)) {
    throw invalidArgument('Errors.User.Username.Reserved', `${field}: a machine user's username must not look like an id or a client id (digits only, or <id>@<project>)`);
  }
  return v;
}
