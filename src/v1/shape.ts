import { invalidArgument } from '../domain/errors';

/**
 * Readers for protobuf-JSON request bodies. A field of the wrong JSON type is INVALID_ARGUMENT naming
 * its path (`dataOrgs.orgs[2].humanUsers[0].user.userName`); an absent field is undefined.
 */
export type Obj = Record<string, unknown>;

const wrong = (path: string, what: string) => invalidArgument('Errors.Request.InvalidShape', `${path} must be ${what}`);

export function obj(o: Obj, key: string, path: string): Obj | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'object' || Array.isArray(v)) throw wrong(`${path}.${key}`, 'an object');
  return v as Obj;
}

function arr(o: Obj, key: string, path: string): unknown[] {
  const v = o[key];
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw wrong(`${path}.${key}`, 'an array');
  return v;
}

export function objects(o: Obj, key: string, path: string): Obj[] {
  return arr(o, key, path).map((item, i) => {
    if (item === null || typeof item !== 'object' || Array.isArray(item))
      throw wrong(`${path}.${key}[${i}]`, 'an object');
    return item as Obj;
  });
}

export function str(o: Obj, key: string, path: string): string | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw wrong(`${path}.${key}`, 'a string');
  return v;
}

/** An id: a string, or a plain number (ids are numeric strings, and hand-written bodies drop the quotes). */
export function id(o: Obj, key: string, path: string): string | undefined {
  const v = o[key];
  if (typeof v === 'number' && Number.isSafeInteger(v)) return String(v);
  return str(o, key, path)?.trim() || undefined;
}

export function strings(o: Obj, key: string, path: string): string[] {
  return arr(o, key, path).map((item, i) => {
    if (typeof item !== 'string') throw wrong(`${path}.${key}[${i}]`, 'a string');
    return item;
  });
}

export function bool(o: Obj, key: string, path: string): boolean | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'boolean') throw wrong(`${path}.${key}`, 'true or false');
  return v;
}

/** PostgreSQL `integer` columns end here; `bigint` ones at the largest exact JavaScript integer. */
export const INT32_MAX = 2_147_483_647;

export function int(o: Obj, key: string, path: string, max = Number.MAX_SAFE_INTEGER): number | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  const n = typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n > max)
    throw wrong(`${path}.${key}`, `an integer from 0 to ${max}`);
  return n;
}

/** A protobuf enum value without its prefix: `GENDER_FEMALE` → `FEMALE`; the unspecified value → undefined. */
export function enumValue(o: Obj, key: string, path: string, prefix: string): string | undefined {
  const v = str(o, key, path);
  if (v === undefined) return undefined;
  const bare = v.startsWith(prefix) ? v.slice(prefix.length) : v;
  return bare === 'UNSPECIFIED' || bare === '' ? undefined : bare;
}
