import { invalidArgument } from '../errors';
import type { KeyOf } from './key';

const MAX_ID = 200;

/**
 * An id a client chooses for a new organization, project or application: letters, digits, `-` and
 * `_`. No `@` or `.`: an application's client id is `<app id>@<project id>`, and a machine user's
 * username is refused when it has that shape (user/validate.ts), which only works while these ids
 * cannot contain either character.
 */
const RESOURCE_ID = /^[A-Za-z0-9_-]{1,200}$/;

export function isResourceId(v: string): boolean {
  return RESOURCE_ID.test(v);
}

/** The id of an existing resource a request refers to: present and not absurdly long. */
export function requireRefId(key: KeyOf, field: string, value: string | undefined | null): string {
  if (!value) throw invalidArgument(key(field, 'missing'), `${field} is required`);
  if (value.length > MAX_ID)
    throw invalidArgument(key(field, 'invalid'), `${field} must be at most ${MAX_ID} characters`);
  return value;
}

/** A client-chosen resource id (see RESOURCE_ID); empty means "generate one". */
export function optionalResourceId(key: KeyOf, field: string, value: string | undefined): string | undefined {
  if (value === undefined || value === '') return undefined;
  if (!isResourceId(value))
    throw invalidArgument(
      key(field, 'invalid'),
      `${field} may only contain letters, digits, "-" and "_" (at most ${MAX_ID})`,
    );
  return value;
}

/**
 * A client-chosen user id. Unlike resource ids it may hold `.` and `@`: user ids imported from other
 * systems are often email-like, and nothing parses a user id apart.
 */
export const USER_ID = /^[A-Za-z0-9_.@-]+$/;
