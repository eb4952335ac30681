import { MACHINE_SIGN_IN, maySignIn } from '../../session/may-sign-in';
import { secureRandomBytes } from '../../../crypto/random';
import { gt } from 'drizzle-orm';
import { m2mRevokedTokens } from '../../../db/schema/index';
import { defineCache, invalidateAfterCommit } from '../../cache';
import type { Ctx, Source } from '../../context';
import { execute } from '../../execute';
import type { OidcEnv } from '../env';
import { halfHash } from '../issue';
import type { ActiveAccessToken } from '../token-lookup';
import { signingKeyOf, verifyOwnJwt } from '../web-keys';
import { signCompact } from './jwt';
import { type MachineUser, machineUser } from './machines';
import { MACHINE_OPAQUE_PREFIX, openToken, sealToken } from './opaque';

/** Every machine token's `jti` starts with this, followed by the credential it was issued for. */
const JTI_PREFIX = 'm2m.';

/**
 * The credential a machine token was issued with: `s<salt>` for the client secret (the salt of its
 * stored hash, new with every secret) or `k<keyId>` for a key. When that secret is replaced or
 * removed, or that key removed, the token is no longer active.
 */
export function secretCredential(secretHash: string | null): string {
  return `s${secretHash?.split('$')[1]?.slice(0, 11) ?? ''}`;
}
export function keyCredential(keyId: string): string {
  return `k${keyId}`;
}

/** Whether an active token is a machine user's own token (client credentials or JWT profile). */
export function isMachineToken(at: ActiveAccessToken): boolean {
  return at.id.startsWith(JTI_PREFIX);
}

function credentialValid(m: MachineUser, cred: string): boolean {
  if (cred.startsWith('s')) return !!m.secretHash && secretCredential(m.secretHash) === cred;
  if (cred.startsWith('k')) return m.keys.some((k) => keyCredential(k.id) === cred);
  return false;
}

interface SealedClaims {
  sub: string;
  cid: string;
  scp: string[];
  aud: string[];
  iat: number;
  exp: number;
  jti: string;
  /** RFC 9449: thumbprint of the DPoP key the token is bound to */
  jkt?: string;
}

export interface MachineTokenParams {
  clientId: string;
  scopes: string[];
  audience: string[];
  credential: string;
  lifetimeSeconds: number;
  jkt?: string;
}

/**
 * Issues a machine user's access token in its access_token_type: a JWT (RFC 9068 shape, signed with
 * the instance key) or a sealed opaque token. Nothing is written: the token carries its claims, and
 * introspection checks the user, the credential and the revocation list (all cached).
 * `env.signingKey` must be loaded (withSigningKey).
 */
export function issueMachineAccessToken(
  env: OidcEnv,
  m: MachineUser,
  p: MachineTokenParams,
): { token: string; jti: string; expiresIn: number } {
  const iat = Math.floor(Date.now() / 1000);
  const exp = iat + p.lifetimeSeconds;
  const jti = `${JTI_PREFIX}${p.credential}.${secureRandomBytes(16).toString('base64url')}`;
  if (m.accessTokenType === 'JWT') {
    const token = signCompact(
      signingKeyOf(env),
      {
        iss: env.issuer,
        sub: m.user.id,
        aud: p.audience,
        exp,
        iat,
        nbf: iat,
        jti,
        client_id: p.clientId,
        scope: p.scopes.join(' '),
        ...(p.jkt ? { cnf: { jkt: p.jkt } } : {}),
      },
      'at+jwt',
    );
    return { token, jti, expiresIn: p.lifetimeSeconds };
  }
  const claims: SealedClaims = { sub: m.user.id, cid: p.clientId, scp: p.scopes, aud: p.audience, iat, exp, jti };
  if (p.jkt) claims.jkt = p.jkt;
  return { token: sealToken(env.masterKey, claims), jti, expiresIn: p.lifetimeSeconds };
}

/** The JWT profile's ID token of the service user (only with `openid`). */
export function issueMachineIdToken(
  env: OidcEnv,
  m: MachineUser,
  p: { clientId: string; scopes: string[]; audience: string[]; lifetimeSeconds: number; accessToken: string },
): string {
  const key = signingKeyOf(env);
  const iat = Math.floor(Date.now() / 1000);
  return signCompact(key, {
    iss: env.issuer,
    sub: m.user.id,
    aud: [p.clientId, ...p.audience.filter((a) => a !== p.clientId)],
    exp: iat + p.lifetimeSeconds,
    iat,
    auth_time: iat,
    azp: p.clientId,
    at_hash: halfHash(p.accessToken, key.alg),
    // §2.4: issued together with an access token, the ID token carries no profile, email, phone or
    // address claims; the client reads them at userinfo with the access token.
  });
}

/** Claims of a machine token, verified (signature or seal) but not yet checked for activity. */
async function readMachineToken(
  src: Source,
  env: Pick<OidcEnv, 'issuer' | 'masterKey'>,
  token: string,
): Promise<SealedClaims | null | undefined> {
  if (token.startsWith(MACHINE_OPAQUE_PREFIX)) return openToken<SealedClaims>(env.masterKey, token) ?? null;
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  let jti: unknown;
  try {
    jti = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8')).jti;
  } catch {
    return undefined;
  }
  if (typeof jti !== 'string' || !jti.startsWith(JTI_PREFIX)) return undefined;
  try {
    const { payload } = await verifyOwnJwt(src, env.masterKey, token, { issuer: env.issuer, typ: 'at+jwt' });
    return {
      sub: String(payload.sub),
      cid: String(payload.client_id),
      scp: String(payload.scope ?? '')
        .split(' ')
        .filter(Boolean),
      aud: Array.isArray(payload.aud) ? payload.aud : payload.aud ? [payload.aud] : [],
      iat: payload.iat ?? 0,
      exp: payload.exp ?? 0,
      jti,
      jkt: jktOfCnf(payload.cnf),
    };
  } catch {
    return null;
  }
}

/**
 * The token-lookup branch for machine tokens: undefined when the token is not one (the caller goes
 * on with its own lookup), null when it is one but not active (expired, revoked, user not active,
 * secret or key gone), else the active token.
 */
export async function findActiveMachineToken(
  src: Source,
  masterKey: Buffer,
  issuer: string,
  token: string,
): Promise<ActiveAccessToken | null | undefined> {
  const c = await readMachineToken(src, { masterKey, issuer }, token);
  if (c === undefined) return undefined;
  if (c === null || c.exp * 1000 <= Date.now()) return null;
  const m = await machineUser(src, c.sub);
  if (!m || !maySignIn(m, MACHINE_SIGN_IN)) return null;
  const cred = c.jti.slice(JTI_PREFIX.length, c.jti.indexOf('.', JTI_PREFIX.length));
  if (!credentialValid(m, cred)) return null;
  if ((await revokedJtis(src)).has(c.jti)) return null;
  return {
    id: c.jti,
    userId: c.sub,
    clientId: c.cid,
    projectId: null,
    scopes: c.scp,
    audience: c.aud,
    sessionId: null,
    grantId: null,
    actorUserId: null,
    userinfoClaims: [],
    issuedAt: new Date(c.iat * 1000),
    expiresAt: new Date(c.exp * 1000),
    jkt: c.jkt ?? null,
    user: m.user,
  };
}

function jktOfCnf(cnf: unknown): string | undefined {
  const jkt = cnf && typeof cnf === 'object' ? (cnf as { jkt?: unknown }).jkt : undefined;
  return typeof jkt === 'string' ? jkt : undefined;
}

// Revocations are rare and tokens many: each process keeps the whole list of revoked, unexpired
// machine tokens and reloads it after any revocation (NOTIFY on commit) or after a minute.
const REVOKED_CACHE = 'm2m.revoked';
const revokedCache = defineCache<Set<string>>(REVOKED_CACHE, { maxAgeMs: 60_000 });

async function revokedJtis({ db, runtime }: Source): Promise<Set<string>> {
  return runtime.get(revokedCache).get('all', async () => {
    const rows = await db
      .select({ jti: m2mRevokedTokens.jti })
      .from(m2mRevokedTokens)
      .where(gt(m2mRevokedTokens.expiresAt, new Date()));
    return new Set(rows.map((r) => r.jti));
  });
}

/**
 * The revocation branch for machine tokens (RFC 7009): false when the token is not one. Only the
 * machine user itself (authenticated with its client id and secret) or the client the token names
 * may revoke it; anyone else is ignored, as the endpoint answers the same either way.
 * Event `oidc_session.access_token.revoked`.
 */
export async function revokeMachineToken(ctx: Ctx, env: OidcEnv, token: string, clientId: string): Promise<boolean> {
  const c = await readMachineToken(ctx, env, token);
  if (c === undefined) return false;
  if (c === null || c.exp * 1000 <= Date.now()) return true;
  const m = await machineUser(ctx, c.sub);
  const own = clientId === c.cid || (!!m && m.user.username.toLowerCase() === clientId.toLowerCase());
  if (!own) return true;
  await execute(ctx, async (work) => {
    const inserted = await work.tx
      .insert(m2mRevokedTokens)
      .values({ jti: c.jti, userId: c.sub, expiresAt: new Date(c.exp * 1000) })
      .onConflictDoNothing()
      .returning({ jti: m2mRevokedTokens.jti });
    if (!inserted.length) return;
    await work.load('access_token', c.jti);
    work.push({
      aggregateType: 'access_token',
      aggregateId: c.jti,
      type: 'oidc_session.access_token.revoked',
      payload: { by: 'client', clientId, userId: c.sub },
      resourceOwner: m?.user.orgId ?? ctx.instanceId,
    });
    // Explicit: only this kind of access_token.revoked (a self-contained JWT) changes the revocation list.
    await invalidateAfterCommit(work, REVOKED_CACHE, 'all');
  });
  // Committed now: drop a list a concurrent reader may have loaded in between (single process, PGlite).
  ctx.runtime.get(revokedCache).evict('all');
  return true;
}
