import { and, asc, eq, gt, inArray, lt, or, sql } from 'drizzle-orm';
import type { JWK } from 'jose';
import {
  jwtVerify,
  type JWTPayload,
  type JWTVerifyResult,
  decodeJwt,
  decodeProtectedHeader,
  importJWK,
  type CryptoKey,
} from 'jose';
import { decryptWithMasterKey, encryptWithMasterKey } from '../../crypto/keys/encryption';
import {
  generateSigningKey,
  importPrivateJwk,
  SIGNING_ALGORITHMS,
  type SigningAlgorithm,
  type SigningKey,
} from '../../crypto/keys/signing';
import type { Db } from '../../db/client';
import { webKeys } from '../../db/schema/index';
import type { Runtime } from '../../deps';
import type { Ctx, Source } from '../context';
import type { OidcEnv } from './env';
import { failedPrecondition, invalidArgument, notFound } from '../errors';
import { defineCache, invalidateAfterCommit } from '../cache';
import { execute, type UnitOfWork } from '../execute';
import { instanceSettings, longestTokenLifetimeMs } from './settings';

export type WebKey = typeof webKeys.$inferSelect;

/**
 * How long a JWKS response may be cached by relying parties (seconds). A new key waits at least this
 * long before it signs.
 */
export const JWKS_MAX_AGE_SECONDS = 300;
const CACHE_TTL_MS = 10_000;

interface KeyCache {
  at: number;
  signing?: SigningKey;
  published: JWK[];
  verify: Map<string, { alg: string; key: Promise<CryptoKey> }>;
}

async function loadCache(db: Db, masterKey: Buffer): Promise<KeyCache> {
  const now = new Date();
  const rows = await db
    .select()
    .from(webKeys)
    .where(
      or(
        inArray(webKeys.state, ['INITIAL', 'ACTIVE']),
        and(eq(webKeys.state, 'INACTIVE'), gt(webKeys.publishedUntil, now)),
      ),
    )
    .orderBy(asc(webKeys.createdAt));
  const active = rows.find((r) => r.state === 'ACTIVE');
  const verify = new Map<string, { alg: string; key: Promise<CryptoKey> }>();
  for (const r of rows)
    verify.set(r.id, { alg: r.algorithm, key: importJWK(r.publicJwk as JWK, r.algorithm) as Promise<CryptoKey> });
  let signing: SigningKey | undefined;
  if (active) {
    const jwk = JSON.parse(decryptWithMasterKey(masterKey, active.privateKeyEncrypted)) as JWK;
    signing = { kid: active.id, alg: active.algorithm, key: await importPrivateJwk(jwk, active.algorithm) };
  }
  return { at: Date.now(), signing, published: rows.map((r) => r.publicJwk as JWK), verify };
}

// One entry per server. Key changes evict it here and, through NOTIFY on commit, in every other
// replica; the maximum age bounds staleness regardless.
const CACHE_NAME = 'web-keys';
const CACHE_KEY = 'keys';
const store = defineCache<KeyCache>(CACHE_NAME, { max: 1, maxAgeMs: CACHE_TTL_MS });

async function keyCache({ db, runtime }: Source, masterKey: Buffer, force = false): Promise<KeyCache> {
  const keys = runtime.get(store);
  if (force) keys.evict(CACHE_KEY);
  return keys.get(CACHE_KEY, () => loadCache(db, masterKey));
}

/** Forgets this server's cached keys (after a change committed here). */
function forgetKeys(runtime: Runtime): void {
  runtime.get(store).evict(CACHE_KEY);
}

/** Inside a key-changing transaction: every replica forgets its cached keys once it commits. */
async function keysChanged(work: UnitOfWork): Promise<void> {
  await invalidateAfterCommit(work, CACHE_NAME, CACHE_KEY);
}

/** The key set the JWKS endpoint publishes: next, active and retired-but-not-expired keys. */
export async function publishedKeys(ctx: Ctx, masterKey: Buffer): Promise<JWK[]> {
  await ensureSigningKey(ctx, masterKey);
  return (await keyCache(ctx, masterKey)).published;
}

/** The key that signs now; creates the first one on first use. */
export async function currentSigningKey(ctx: Ctx, masterKey: Buffer): Promise<SigningKey> {
  let cache = await keyCache(ctx, masterKey);
  if (!cache.signing) {
    await ensureSigningKey(ctx, masterKey);
    cache = await keyCache(ctx, masterKey, true);
  }
  if (!cache.signing) throw failedPrecondition('Errors.WebKey.NoActive', 'no active signing key');
  return cache.signing;
}

/** Verifies a JWT signed by one of our published keys (reloading once for an unknown kid). */
export async function verifyOwnJwt(
  src: Source,
  masterKey: Buffer,
  token: string,
  opts: { issuer: string; ignoreExpiration?: boolean; typ?: string },
): Promise<JWTVerifyResult<JWTPayload>> {
  const header = decodeProtectedHeader(token);
  if (!header.kid || !header.alg || header.alg === 'none') throw new Error('unsigned token');
  let cache = await keyCache(src, masterKey);
  let entry = cache.verify.get(header.kid);
  if (!entry) {
    cache = await keyCache(src, masterKey, Date.now() - cache.at > 1000);
    entry = cache.verify.get(header.kid);
  }
  if (!entry || entry.alg !== header.alg) throw new Error('unknown signing key');
  return jwtVerify(token, await entry.key, {
    issuer: opts.issuer,
    algorithms: [entry.alg],
    typ: opts.typ,
    ...(opts.ignoreExpiration ? { currentDate: withinLifetime(token) } : {}),
  });
}

/**
 * The moment to check an expired token's time claims at: just before it expired, so `exp` passes
 * while `nbf` and `iat` are still checked (a date far in the past would fail every token with `nbf`,
 * such as our JWT access tokens). Unexpired tokens are checked at the present.
 */
function withinLifetime(token: string): Date {
  const { exp } = decodeJwt(token);
  const now = Date.now();
  return typeof exp === 'number' && exp * 1000 <= now ? new Date(exp * 1000 - 1000) : new Date(now);
}

async function lockKeys(work: UnitOfWork): Promise<void> {
  // Serializes key changes of all replicas: whoever holds it sees the others' committed keys.
  await work.tx.execute(sql`select pg_advisory_xact_lock(7301001)`);
}

async function insertKey(
  work: UnitOfWork,
  masterKey: Buffer,
  alg: SigningAlgorithm,
  state: 'INITIAL' | 'ACTIVE',
): Promise<WebKey> {
  const k = await generateSigningKey(alg);
  const now = new Date();
  const [row] = await work.tx
    .insert(webKeys)
    .values({
      id: k.kid,
      algorithm: alg,
      state,
      publicJwk: k.publicJwk as Record<string, unknown>,
      privateKeyEncrypted: encryptWithMasterKey(masterKey, JSON.stringify(k.privateJwk)),
      activatedAt: state === 'ACTIVE' ? now : null,
    })
    .returning();
  work.created('web_key', k.kid);
  await keysChanged(work);
  work.push({
    aggregateType: 'web_key',
    aggregateId: k.kid,
    type: 'web_key.added',
    payload: { algorithm: alg },
    resourceOwner: work.ctx.instanceId,
  });
  if (state === 'ACTIVE') {
    work.push({
      aggregateType: 'web_key',
      aggregateId: k.kid,
      type: 'web_key.activated',
      payload: {},
      resourceOwner: work.ctx.instanceId,
    });
  }
  return row;
}

async function activate(work: UnitOfWork, key: WebKey, retireAfterMs: number): Promise<void> {
  const now = new Date();
  await keysChanged(work);
  const [current] = await work.tx.select().from(webKeys).where(eq(webKeys.state, 'ACTIVE'));
  if (current?.id === key.id) return;
  if (current) {
    await work.tx
      .update(webKeys)
      .set({ state: 'INACTIVE', changedAt: now, publishedUntil: new Date(now.getTime() + retireAfterMs) })
      .where(eq(webKeys.id, current.id));
    work.push({
      aggregateType: 'web_key',
      aggregateId: current.id,
      type: 'web_key.deactivated',
      payload: {},
      resourceOwner: work.ctx.instanceId,
    });
  }
  await work.tx
    .update(webKeys)
    .set({ state: 'ACTIVE', changedAt: now, activatedAt: now, publishedUntil: null })
    .where(eq(webKeys.id, key.id));
  work.push({
    aggregateType: 'web_key',
    aggregateId: key.id,
    type: 'web_key.activated',
    payload: {},
    resourceOwner: work.ctx.instanceId,
  });
}

async function signingAlgorithm(ctx: Ctx): Promise<SigningAlgorithm> {
  const s = await instanceSettings(ctx, ctx.instanceId);
  return SIGNING_ALGORITHMS.includes(s.signingAlgorithm) ? s.signingAlgorithm : 'RS256';
}

/**
 * Makes sure a key signs and a successor is already published. The very first key signs at once
 * (nothing was published before it, so no relying party can hold a stale key set).
 */
export async function ensureSigningKey(ctx: Ctx, masterKey: Buffer): Promise<void> {
  const cache = await keyCache(ctx, masterKey);
  if (cache.signing && cache.published.length > 1) return;
  const alg = await signingAlgorithm(ctx);
  const changed = await execute(ctx, async (work) => {
    await lockKeys(work);
    const rows = await work.tx
      .select()
      .from(webKeys)
      .where(inArray(webKeys.state, ['INITIAL', 'ACTIVE']));
    let changed = false;
    if (!rows.some((r) => r.state === 'ACTIVE')) {
      await insertKey(work, masterKey, alg, 'ACTIVE');
      changed = true;
    }
    if (!rows.some((r) => r.state === 'INITIAL')) {
      await insertKey(work, masterKey, alg, 'INITIAL');
      changed = true;
    }
    return changed;
  });
  if (changed || !cache.signing) forgetKeys(ctx.runtime);
}

/**
 * Scheduled rotation: when the active key is older than the interval, the published successor
 * (created at the previous rotation, so relying parties have had it for a whole interval) starts
 * signing, the old key stays published until its tokens expire, and a new successor is published.
 * Retired keys past their publication time are deleted. Safe to run on every replica at once.
 */
export async function rotateKeysIfDue(ctx: Ctx, masterKey: Buffer, intervalMs: number): Promise<boolean> {
  const settings = await instanceSettings(ctx, ctx.instanceId);
  const alg = await signingAlgorithm(ctx);
  const rotated = await execute(ctx, async (work) => {
    await lockKeys(work);
    const now = Date.now();
    const expired = await work.tx
      .delete(webKeys)
      .where(and(eq(webKeys.state, 'INACTIVE'), lt(webKeys.publishedUntil, new Date(now))))
      .returning({ id: webKeys.id });
    if (expired.length) await keysChanged(work);
    for (const e of expired) {
      await work.load('web_key', e.id);
      work.push({
        aggregateType: 'web_key',
        aggregateId: e.id,
        type: 'web_key.removed',
        payload: {},
        resourceOwner: ctx.instanceId,
      });
    }
    const rows = await work.tx
      .select()
      .from(webKeys)
      .where(inArray(webKeys.state, ['INITIAL', 'ACTIVE']))
      .orderBy(asc(webKeys.createdAt));
    const active = rows.find((r) => r.state === 'ACTIVE');
    if (active && now - (active.activatedAt ?? active.createdAt).getTime() < intervalMs) return expired.length > 0;
    // The successor must have been published for longer than the JWKS may be cached.
    const next = rows.find((r) => r.state === 'INITIAL' && now - r.createdAt.getTime() >= JWKS_MAX_AGE_SECONDS * 1000);
    if (!next) {
      if (!rows.some((r) => r.state === 'INITIAL')) await insertKey(work, masterKey, alg, 'INITIAL');
      return true;
    }
    await work.load('web_key', next.id);
    if (active) await work.load('web_key', active.id);
    await activate(work, next, longestTokenLifetimeMs(settings) + JWKS_MAX_AGE_SECONDS * 1000);
    await insertKey(work, masterKey, alg, 'INITIAL');
    return true;
  });
  if (rotated) forgetKeys(ctx.runtime);
  return rotated;
}

/** CreateWebKey: a new published key that does not sign until activated. */
export async function createWebKey(ctx: Ctx, masterKey: Buffer, alg?: SigningAlgorithm): Promise<WebKey> {
  const algorithm = alg ?? (await signingAlgorithm(ctx));
  const row = await execute(ctx, async (work) => {
    await lockKeys(work);
    return insertKey(work, masterKey, algorithm, 'INITIAL');
  });
  forgetKeys(ctx.runtime);
  return row;
}

/** ActivateWebKey: the key signs from now on; the previous one stays published until its tokens expire. */
export async function activateWebKey(ctx: Ctx, keyId: string): Promise<WebKey> {
  const settings = await instanceSettings(ctx, ctx.instanceId);
  const row = await execute(ctx, async (work) => {
    await lockKeys(work);
    const [key] = await work.tx.select().from(webKeys).where(eq(webKeys.id, keyId));
    if (!key) throw notFound('Errors.WebKey.NotFound', 'web key not found');
    if (key.state === 'INACTIVE')
      throw failedPrecondition('Errors.WebKey.Inactive', 'a retired key cannot be activated again; create a new one');
    await work.load('web_key', key.id);
    await activate(work, key, longestTokenLifetimeMs(settings) + JWKS_MAX_AGE_SECONDS * 1000);
    const [after] = await work.tx.select().from(webKeys).where(eq(webKeys.id, keyId));
    return after;
  });
  forgetKeys(ctx.runtime);
  return row;
}

/** DeleteWebKey: removes a key that does not sign; deleting the active key is refused. */
export async function deleteWebKey(ctx: Ctx, keyId: string): Promise<void> {
  await execute(ctx, async (work) => {
    await lockKeys(work);
    const [key] = await work.tx.select().from(webKeys).where(eq(webKeys.id, keyId));
    if (!key) return;
    if (key.state === 'ACTIVE')
      throw failedPrecondition('Errors.WebKey.Active', 'the active key cannot be deleted; activate another key first');
    await work.load('web_key', key.id);
    await work.tx.delete(webKeys).where(eq(webKeys.id, keyId));
    await keysChanged(work);
    work.push({
      aggregateType: 'web_key',
      aggregateId: key.id,
      type: 'web_key.removed',
      payload: {},
      resourceOwner: ctx.instanceId,
    });
  });
  forgetKeys(ctx.runtime);
}

export async function listWebKeys(ctx: Ctx): Promise<WebKey[]> {
  return ctx.db.select().from(webKeys).orderBy(asc(webKeys.createdAt));
}

export function parseAlgorithm(raw: string | undefined): SigningAlgorithm | undefined {
  if (!raw) return undefined;
  const found = SIGNING_ALGORITHMS.find((a) => a.toLowerCase() === raw.toLowerCase());
  if (!found)
    throw invalidArgument('Errors.WebKey.Algorithm', `algorithm must be one of ${SIGNING_ALGORITHMS.join(', ')}`);
  return found;
}

/** The env with the current signing key loaded, for token issuance inside a transaction. */
export async function withSigningKey(ctx: Ctx, env: OidcEnv): Promise<OidcEnv> {
  return env.signingKey ? env : { ...env, signingKey: await currentSigningKey(ctx, env.masterKey) };
}

function keyOf(env: OidcEnv): SigningKey {
  if (!env.signingKey) throw new Error('load the signing key with withSigningKey() before the transaction');
  return env.signingKey;
}
export { keyOf as signingKeyOf };
