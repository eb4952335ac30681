import type { ClaimRequest, ClaimsRequest } from '../../db/schema/oidc';
import { invalidRequest } from './oauth-errors';
import { USER_CLAIMS } from './claims';

/**
 * The `claims` request parameter (OIDC Core §5.5): which claims the client wants in the ID token and
 * at userinfo, beyond what its scopes give. Parsed once at the authorization endpoint (also from a
 * request object or a pushed request), stored with the auth request and its grant, and read when
 * tokens are issued.
 */
export type { ClaimRequest, ClaimsRequest };

/**
 * Limits on what a client may send: the parameter sits in a URL and in a database row, and every
 * requested claim is work at every token issuance.
 */
const CLAIMS_PARAMETER_MAX_LENGTH = 4096;
const CLAIMS_PARAMETER_MAX_CLAIMS = 100;
const MAX_VALUES = 20;

/** Claims the parameter can ask for: the user claims we issue, and the ID token's acr, auth_time, sub. */
const ACTED_ON = new Set([...Object.keys(USER_CLAIMS), 'acr', 'auth_time', 'sub']);
const PLACES = ['id_token', 'userinfo'] as const;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Parses and checks the parameter's JSON text: an object with optional `id_token` and `userinfo`
 * objects, each mapping a claim name to null or to {essential?, value?, values?}. Anything else, or
 * too much of it, is invalid_request. Claims we do not know are ignored, as are other top-level members
 * (§5.5); only ours are kept.
 */
export function parseClaimsRequest(raw: string): ClaimsRequest {
  if (raw.length > CLAIMS_PARAMETER_MAX_LENGTH) {
    throw invalidRequest(`claims is longer than ${CLAIMS_PARAMETER_MAX_LENGTH} characters`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw invalidRequest('claims is not valid JSON');
  }
  if (!isObject(parsed)) throw invalidRequest('claims must be a JSON object');
  const out: ClaimsRequest = { id_token: {}, userinfo: {} };
  let count = 0;
  for (const place of PLACES) {
    const members = parsed[place];
    if (members === undefined || members === null) continue;
    if (!isObject(members)) throw invalidRequest(`claims.${place} must be an object`);
    for (const [name, request] of Object.entries(members)) {
      if (++count > CLAIMS_PARAMETER_MAX_CLAIMS) {
        throw invalidRequest(`claims asks for more than ${CLAIMS_PARAMETER_MAX_CLAIMS} claims`);
      }
      const checked = claimRequest(place, name, request);
      if (ACTED_ON.has(name)) out[place][name] = checked;
    }
  }
  return out;
}

/** One member: null (default) or an object whose known members have the right types. */
function claimRequest(place: string, name: string, request: unknown): ClaimRequest {
  const where = `claims.${place}.${name}`;
  if (request === null) return {};
  if (!isObject(request)) throw invalidRequest(`${where} must be null or an object`);
  const out: ClaimRequest = {};
  const { essential, value, values } = request;
  if (essential !== undefined) {
    if (typeof essential !== 'boolean') throw invalidRequest(`${where}.essential must be true or false`);
    out.essential = essential;
  }
  if (value !== undefined && values !== undefined) throw invalidRequest(`${where}: send value or values, not both`);
  // acr and sub values are compared with ours, so they must be strings; for other claims they are hints we do not use
  const compared = name === 'acr' || name === 'sub';
  if (value !== undefined) {
    if (typeof value === 'string') out.value = value;
    else if (compared) throw invalidRequest(`${where}.value must be a string`);
  }
  if (values !== undefined) {
    if (!Array.isArray(values) || values.length > MAX_VALUES) {
      throw invalidRequest(`${where}.values must be an array of at most ${MAX_VALUES} values`);
    }
    if (compared && !values.every((v) => typeof v === 'string')) {
      throw invalidRequest(`${where}.values must be strings`);
    }
    out.values = values.filter((v): v is string => typeof v === 'string');
  }
  return out;
}

/** The names requested for one place (ID token or userinfo). */
export const requestedClaimNames = (r: ClaimsRequest | null | undefined, place: keyof ClaimsRequest): string[] =>
  r ? Object.keys(r[place] ?? {}) : [];

/**
 * The acr values an essential `acr` of the ID token asks for (§5.5.1.1), in the client's order; null
 * when acr is not essential or names no value.
 */
export function essentialAcrValues(r: ClaimsRequest | null | undefined): string[] | null {
  const acr = r?.id_token.acr;
  if (!acr?.essential) return null;
  const values = acr.values ?? (acr.value !== undefined ? [acr.value] : []);
  return values.length ? values : null;
}

/**
 * The user a `sub` value names (§5.5.1): the request may only be answered for that user. Asked for
 * in the ID token or at userinfo; two different values are a contradiction.
 */
export function requestedSubject(r: ClaimsRequest | null | undefined): string | undefined {
  if (!r) return undefined;
  const subs = [r.id_token.sub, r.userinfo.sub].flatMap((s) => s?.value ?? s?.values ?? []);
  const distinct = [...new Set(subs)];
  if (distinct.length > 1) throw invalidRequest('claims names more than one sub value');
  return distinct[0];
}

/** What buildIdToken takes of the parameter: the names asked for in the ID token and the essential acr values. */
export function idTokenRequests(
  r: ClaimsRequest | null | undefined,
): { claims: string[]; essentialAcr: string[] | null } | undefined {
  return r ? { claims: requestedClaimNames(r, 'id_token'), essentialAcr: essentialAcrValues(r) } : undefined;
}
