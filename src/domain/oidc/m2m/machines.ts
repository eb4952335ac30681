import { claimUserColumns } from '../issue';
import { createPublicKey, type KeyObject } from 'node:crypto';
import { and, eq, ne, sql } from 'drizzle-orm';
import type { Db } from '../../../db/client';
import { orgs, userKeys, users } from '../../../db/schema/index';
import { defineCache, invalidateAfterCommit } from '../../cache';
import type { Source } from '../../context';
import type { UnitOfWork } from '../../execute';
import type { ClaimUser } from '../claims';
import type { OidcClient } from '../clients';

/** What the machine-to-machine grants and token checks need of a machine user, cached by each server. */
export interface MachineUser {
  user: ClaimUser;
  state: string;
  /** JWT | BEARER (opaque) */
  accessTokenType: string;
  secretHash: string | null;
  keys: { id: string; key: KeyObject; expiresAt: Date | null }[];
}

const MACHINE_CACHE = 'm2m.machine';
const USERNAME_CACHE = 'm2m.username';

// Read on every client credentials / JWT profile request and every introspection of a machine token.
// User commands that change a machine user's state, secret or keys evict it in every replica on
// commit (invalidateMachineUser); the maximum age bounds staleness should a notification be lost.
const machineCache = defineCache<MachineUser | undefined>(MACHINE_CACHE, { maxAgeMs: 30_000, max: 50_000 });
const usernameCache = defineCache<string | undefined>(USERNAME_CACHE, { maxAgeMs: 30_000, max: 50_000 });

/** A machine user by id (undefined for unknown ids, human users and removed users). */
export async function machineUser(src: Source, userId: string): Promise<MachineUser | undefined> {
  const machines = src.runtime.get(machineCache);
  const found = await machines.get(userId, () => loadMachine(src.db, userId));
  // Unknown ids are not remembered: a user created a moment later must work at once.
  if (!found) machines.evict(userId);
  return found;
}

/** A machine user by its username, the client id of the client credentials grant (case-insensitive). */
export async function machineUserByUsername(src: Source, username: string): Promise<MachineUser | undefined> {
  const key = username.toLowerCase();
  const usernames = src.runtime.get(usernameCache);
  const id = await usernames.get(key, () => loadIdByUsername(src.db, key));
  if (!id) {
    usernames.evict(key);
    return undefined;
  }
  const m = await machineUser(src, id);
  // A renamed user: the cached name → id entry is stale, look again.
  if (!m || m.user.username.toLowerCase() !== key) {
    usernames.evict(key);
    const fresh = await loadIdByUsername(src.db, key);
    return fresh && fresh !== id ? machineUser(src, fresh) : undefined;
  }
  return m;
}

/**
 * Call from every command that changes a machine user's state, username, token type, secret or
 * keys: evicts it here now and in every replica when the transaction commits.
 */
export async function invalidateMachineUser(work: UnitOfWork, userId: string): Promise<void> {
  await invalidateAfterCommit(work, MACHINE_CACHE, userId);
}

/**
 * The machine user as a client of the token, introspection and revocation endpoints: client id =
 * username, secret = its client secret (Basic or post). It may use only the machine grants.
 */
export async function findMachineClient(src: Source, clientId: string): Promise<OidcClient | undefined> {
  const m = await machineUserByUsername(src, clientId);
  if (!m) return undefined;
  return {
    applicationId: m.user.id,
    clientId: m.user.username,
    projectId: '',
    orgId: m.user.orgId,
    name: m.user.username,
    type: MACHINE_CLIENT_TYPE,
    active: m.state === 'ACTIVE',
    secretHash: m.secretHash,
    authMethod: 'BASIC',
    project: { roleAssertion: false, authorizationRequired: false, projectAccessRequired: false },
    audience: [m.user.id],
    keys: [],
  };
}

export const MACHINE_CLIENT_TYPE = 'MACHINE_USER';

async function loadIdByUsername(db: Db, lowerName: string): Promise<string | undefined> {
  const [row] = await db
    .select({ id: users.id })
    .from(users)
    .where(and(sql`lower(${users.username}) = ${lowerName}`, eq(users.type, 'MACHINE'), ne(users.state, 'REMOVED')));
  return row?.id;
}

async function loadMachine(db: Db, userId: string): Promise<MachineUser | undefined> {
  const [row] = await db
    .select({
      ...claimUserColumns,
      accessTokenType: users.accessTokenType,
      secretHash: users.secretHash,
      machineName: users.machineName,
    })
    .from(users)
    .innerJoin(orgs, eq(orgs.id, users.orgId))
    .where(eq(users.id, userId));
  if (!row || row.type !== 'MACHINE' || row.state === 'REMOVED') return undefined;
  const keyRows = await db.select().from(userKeys).where(eq(userKeys.userId, userId));
  const keys: MachineUser['keys'] = [];
  for (const k of keyRows) {
    try {
      keys.push({ id: k.id, key: createPublicKey(k.publicKey), expiresAt: k.expiresAt });
    } catch {
      // a key that no longer parses cannot verify anything
    }
  }
  const { state, type: _type, orgState, accessTokenType, secretHash, machineName, ...user } = row;
  return {
    user: { ...user, displayName: user.displayName ?? machineName },
    // A machine user of a deactivated organization is stopped like a deactivated one: no client
    // credentials, no JWT profile, and its tokens are inactive (org changes evict this entry).
    state: orgState === 'ACTIVE' ? state : 'INACTIVE',
    accessTokenType: accessTokenType ?? 'BEARER',
    secretHash,
    keys,
  };
}
