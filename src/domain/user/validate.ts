import { invalidArgument } from '../errors';
import { isEmailAddress, MAX_EMAIL } from '../validate/email';
import { USER_ID } from '../validate/id';
import type { KeyOf } from '../validate/key';
import { optionalFreeText, requireText as sharedRequireText } from '../validate/text';
import { httpUrl, parseUrl } from '../validate/url';
import { requireUsername } from '../validate/username';

/**
 * Input checks shared by the user commands. Each error names the field as the v2 API spells it
 * (e.g. `human.profile.given_name`), so a caller knows what to fix.
 */
const KEY = 'Errors.User.Invalid';
const key: KeyOf = () => KEY;

// The rules themselves live in domain/validate/, shared with the organization and project commands;
// here they throw the users' key. A control character refused there becomes that field's error (and,
// in the bulk import, that user's errors[] entry instead of a failed request).

export function requireText(field: string, value: string | undefined | null, max = 200): string {
  return sharedRequireText(key, field, value, max);
}

export function optionalText(field: string, value: string | undefined | null, max = 200): string | undefined {
  return optionalFreeText(key, field, value, max);
}

export function checkId(field: string, value: string | undefined | null): string {
  const v = requireText(field, value, 200);
  if (!USER_ID.test(v)) throw invalidArgument(KEY, `${field} may contain only letters, digits and _ . @ -`);
  return v;
}

export function checkUsername(field: string, value: string | undefined | null): string {
  return requireUsername(key, field, value);
}

export function checkEmail(field: string, value: string | undefined | null): string {
  const v = requireText(field, value, MAX_EMAIL);
  if (!isEmailAddress(v)) throw invalidArgument(KEY, `${field} is not a valid email address`);
  return v;
}

export function checkPhone(field: string, value: string | undefined | null): string {
  const v = requireText(field, value, 200);
  if (!/^\+?[0-9 ()-]{3,}$/.test(v) || !/[0-9]/.test(v))
    throw invalidArgument(KEY, `${field} is not a valid phone number`);
  return v;
}

export function checkLanguage(field: string, value: string | undefined): string | undefined {
  if (value === undefined || value === '') return value === '' ? '' : undefined;
  if (!/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/.test(value))
    throw invalidArgument(KEY, `${field} must be a language tag such as "en" or "de-CH"`);
  return value;
}

export function checkUrlTemplate(field: string, value: string | undefined): string | undefined {
  if (value === undefined || value === '') return undefined;
  if (value.length > 2000) throw invalidArgument(KEY, `${field} must be at most 2000 characters`);
  // {{.Code}}-style placeholders are filled in later; a stand-in makes the template parse as the URL it becomes.
  const filled = value.replaceAll(/\{\{\.?\w+\}\}/g, 'x');
  if (!parseUrl(filled)) throw invalidArgument(KEY, `${field} is not a valid URL`);
  if (!httpUrl(filled)) throw invalidArgument(KEY, `${field} must be an http(s) URL`);
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
    throw invalidArgument(
      'Errors.User.Username.Reserved',
      `${field}: a machine user's username must not look like an id or a client id (digits only, or <id>@<project>)`,
    );
  }
  return v;
}
