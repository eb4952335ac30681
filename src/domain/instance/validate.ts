import { invalidArgument } from '../errors';
import { requireDomain as sharedRequireDomain } from '../validate/domain-name';
import { isEmailAddress } from '../validate/email';
import { optionalResourceId, requireRefId } from '../validate/id';
import type { KeyOf } from '../validate/key';
import { requireText as sharedRequireText } from '../validate/text';
import { requireUsername as sharedRequireUsername } from '../validate/username';

/**
 * Input checks of the resource commands (organizations, projects, grants…). The rules are the shared
 * ones of domain/validate/; these throw `Errors.Invalid.<field>`, the key this API has always
 * returned. Each error names the field.
 */
const key: KeyOf = (field) => `Errors.Invalid.${field}`;

export function requireText(field: string, value: string | undefined, max = 200): string {
  return sharedRequireText(key, field, value, max);
}

/** Left out, or a text that is not empty (a role's group or display name). */
export function optionalNonEmptyText(field: string, value: string | undefined, max = 200): string | undefined {
  if (value === undefined) return undefined;
  return requireText(field, value, max);
}

/** Client-chosen ids: letters, digits, `-` and `_`, at most 200 characters. */
export function optionalId(field: string, value: string | undefined): string | undefined {
  return optionalResourceId(key, field, value);
}

export function requireId(field: string, value: string | undefined): string {
  return requireRefId(key, field, value);
}

/** A DNS host name without scheme or port, lower-cased. */
export function requireDomain(field: string, value: string | undefined): string {
  return sharedRequireDomain(key, field, value);
}

/** The same email rule as the user commands (user/validate.ts checkEmail), with this API's key. */
export function requireEmail(field: string, value: string | undefined): string {
  const v = requireText(field, value);
  if (!isEmailAddress(v)) throw invalidArgument(key(field, 'invalid'), `${field} is not a valid email address`);
  return v;
}

/** The same username rule as the user commands (user/validate.ts checkUsername), with this API's key. */
export function requireUsername(field: string, value: string | undefined): string {
  return sharedRequireUsername(key, field, value);
}
