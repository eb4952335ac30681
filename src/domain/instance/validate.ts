import { invalidArgument } from '../errors';
import { isEmailAddress } from '../user/validate';

/** Input checks shared by the resource commands; each error names the field. */
export function requireText(field: string, value: string | undefined, max = 200): string {
  const v = (value ?? '').trim();
  if (!v) throw invalidArgument(`Errors.Invalid.${field}`, `${field} is required`);
  if (v.length > max) throw invalidArgument(`Errors.Invalid.${field}`, `${field} must be at most ${max} characters`);
  return v;
}

export function optionalText(field: string, value: string | undefined, max = 200): string | undefined {
  if (value === undefined) return undefined;
  return requireText(field, value, max);
}

/** Client-chosen ids: letters, digits, `-` and `_`, at most 200 characters. */
export function optionalId(field: string, value: string | undefined): string | undefined {
  if (value === undefined || value === '') return undefined;
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(value)) {
    throw invalidArgument(`Errors.Invalid.${field}`, `${field} may only contain letters, digits, "-" and "_" (at most 200)`);
  }
  return value;
}

export function requireId(field: string, value: string | undefined): string {
  if (!value) throw invalidArgument(`Errors.Invalid.${field}`, `${field} is required`);
  if (value.length > 200) throw invalidArgument(`Errors.Invalid.${field}`, `${field} is too long`);
  return value;
}

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/** A DNS host name without scheme or port, lower-cased. */
export function requireDomain(field: string, value: string | undefined): string {
  const v = (value ?? '').trim().toLowerCase();
  if (!v) throw invalidArgument(`Errors.Invalid.${field}`, `${field} is required`);
  if (v.length > 253 || !v.split('.').every((l) => LABEL.test(l))) {
    throw invalidArgument(`Errors.Invalid.${field}`, `${field} must be a domain name such as "example.com" (no scheme, no port)`);
  }
  return v;
}

export function requireEmail(field: string, value: string | undefined): string {
  const v = (value ?? '').trim();
  if (!isEmailAddress(v)) throw invalidArgument(`Errors.Invalid.${field}`, `${field} must be an email address`);
  return v;
}
