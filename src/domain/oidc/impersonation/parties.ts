import { and, eq, gt, inArray, isNull, or } from 'drizzle-orm';
import { type CryptoKey, decodeProtectedHeader, importSPKI, type JWTPayload, jwtVerify } from 'jose';
import type { Db } from '../../../db/client';
import { oidcGrants, sessions } from '../../../db/schema/index';
import type { Ctx } from '../../context';
import type { OidcClient } from '../clients';
import type { OidcEnv } from '../env';
import { claimUser } from '../issue';
import { invalidGrant, invalidRequest } from '../oauth-errors';
import { findActiveAccessToken } from '../token-lookup';
import { verifyOwnJwt } from '../web-keys';

export const TOKEN_TYPES = {
  accessToken: 'urn:ietf:params:oauth:token-type:access_token',
  refreshToken: 'urn:ietf:params:oauth:token-type:refresh_token',
  idToken: 'urn:ietf:params:oauth:token-type:id_token',
  jwt: 'urn:ietf:params:oauth:token-type:jwt',
  userId: 'urn:service:params:oauth:token-type:user_id',
} as const;

/** A party of the exchange (subject or actor) as read from its token. */
export interface Party {
  userId: string;
  audience: string[];
  scopes: string[];
  sessionId: string | null;
  nonce: string | null;
  authTime: Date | null;
  amr: string[];
  /** a DPoP-bound access token's key */
  jkt?: string | null;
}

/** A token of one type, presented in the request's field `field` (subject_token or actor_token). */
interface Presented {
  ctx: Ctx;
  env: OidcEnv;
  client: OidcClient;
  token: string;
  field: string;
}

/** What a token that names only a user stands for: no audience, scopes, session or authentication. */
const userOnly = (userId: string): Party => ({
  userId,
  audience: [],
  scopes: [],
  sessionId: null,
  nonce: null,
  authTime: null,
  amr: [],
});

const invalid = (field: string) => invalidGrant(`${field} is invalid, expired or revoked`);

const READERS = new Map<string, (p: Presented) => Promise<Party>>([
  [TOKEN_TYPES.accessToken, readAccessToken],
  [TOKEN_TYPES.idToken, readIdToken],
  [TOKEN_TYPES.jwt, async (p) => userOnly(await verifyClientJwt(p))],
  [TOKEN_TYPES.userId, readUserId],
]);

/** Reads the subject or actor token of the type the request names; the caller has checked that it may be used. */
export async function readParty(
  ctx: Ctx,
  env: OidcEnv,
  client: OidcClient,
  token: string,
  type: string,
  field: string,
): Promise<Party> {
  const read = READERS.get(type);
  if (!read) throw invalidRequest(`${field}_type ${type} is not supported`);
  return read({ ctx, env, client, token, field });
}

async function readAccessToken({ ctx, env, token, field }: Presented): Promise<Party> {
  const at = await findActiveAccessToken(ctx, env.masterKey, env.issuer, token);
  if (!at) throw invalid(field);
  // An access token never lists offline_access; its grant does when the user allowed refreshing.
  const scopes =
    at.grantId && (await grantAllowsRefresh(ctx.db, at.grantId)) ? [...at.scopes, 'offline_access'] : at.scopes;
  return { ...userOnly(at.userId), audience: at.audience, scopes, sessionId: at.sessionId, jkt: at.jkt };
}

async function readIdToken({ ctx, env, token, field }: Presented): Promise<Party> {
  let p: JWTPayload;
  try {
    ({ payload: p } = await verifyOwnJwt(ctx, env.masterKey, token, { issuer: env.issuer, typ: 'JWT' }));
  } catch {
    throw invalid(field);
  }
  if (typeof p.sub !== 'string') throw invalid(field);
  const audience = Array.isArray(p.aud) ? p.aud : p.aud ? [p.aud] : [];
  const sessionId = typeof p.sid === 'string' ? p.sid : null;
  const scopes = await idTokenScopes(ctx.db, sessionId, audience);
  if (!scopes) throw invalid(field);
  return {
    userId: p.sub,
    audience,
    scopes,
    sessionId,
    nonce: typeof p.nonce === 'string' ? p.nonce : null,
    authTime: typeof p.auth_time === 'number' ? new Date(p.auth_time * 1000) : null,
    amr: Array.isArray(p.amr) ? p.amr.filter((a): a is string => typeof a === 'string') : [],
  };
}

async function readUserId({ ctx, token, field }: Presented): Promise<Party> {
  const u = await claimUser(ctx.db, token);
  if (!u || u.state === 'REMOVED') throw invalidGrant(`${field}: unknown user`);
  return userOnly(u.id);
}

async function grantAllowsRefresh(db: Db, grantId: string): Promise<boolean> {
  const [g] = await db
    .select({ scopes: oidcGrants.scopes })
    .from(oidcGrants)
    .where(and(eq(oidcGrants.id, grantId), isNull(oidcGrants.revokedAt)));
  return !!g?.scopes.includes('offline_access');
}

/**
 * Scopes an ID token stands for: those granted in its session to the clients it was issued for, while
 * that session is live and the grant not revoked; none at all once the session has ended (logout,
 * revocation), so an old ID token cannot be turned into fresh tokens. An ID token without a session
 * (the JWT profile's) stands for `openid` only.
 */
async function idTokenScopes(db: Db, sessionId: string | null, audience: string[]): Promise<string[] | undefined> {
  if (!sessionId) return ['openid'];
  if (!audience.length) return undefined;
  const rows = await db
    .select({ scopes: oidcGrants.scopes })
    .from(oidcGrants)
    .innerJoin(sessions, eq(sessions.id, oidcGrants.sessionId))
    .where(
      and(
        eq(oidcGrants.sessionId, sessionId),
        inArray(oidcGrants.clientId, audience),
        isNull(oidcGrants.revokedAt),
        isNull(sessions.terminatedAt),
        or(isNull(sessions.expiresAt), gt(sessions.expiresAt, new Date())),
      ),
    );
  if (!rows.length) return undefined;
  return [...new Set(rows.flatMap((r) => r.scopes))].filter((s) => s !== 'offline_access');
}

/** A JWT the client signed with one of its registered keys: iss = client id, sub = the user, aud = us, exp. */
async function verifyClientJwt({ env, client, token, field }: Presented): Promise<string> {
  let alg: string | undefined;
  let kid: string | undefined;
  try {
    ({ alg, kid } = decodeProtectedHeader(token));
  } catch {
    throw invalidGrant(`${field} is not a JWT`);
  }
  if (!alg || alg === 'none' || alg.startsWith('HS')) throw invalidGrant(`${field}: algorithm not allowed`);
  const now = Date.now();
  for (const k of client.keys) {
    if ((kid && k.id !== kid) || (k.expiresAt && k.expiresAt.getTime() <= now)) continue;
    let key: CryptoKey;
    try {
      key = await importSPKI(k.publicKey, alg);
    } catch {
      continue;
    }
    try {
      const { payload } = await jwtVerify(token, key, {
        algorithms: [alg],
        issuer: client.clientId,
        audience: [env.issuer, `${env.issuer}/`, `${env.issuer}/oauth/v2/token`],
        clockTolerance: 5,
      });
      if (typeof payload.exp !== 'number') throw invalidGrant(`${field}: exp is missing`);
      if (typeof payload.sub !== 'string' || !payload.sub) throw invalidGrant(`${field}: sub is missing`);
      return payload.sub;
    } catch (err) {
      if ((err as { code?: string }).code === 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED') continue;
      if (err instanceof Error && 'kind' in err) throw err;
      throw invalidGrant(`${field} rejected: ${(err as Error).message}`);
    }
  }
  throw invalidGrant(`${field} must be signed with a registered key of the client`);
}
