import { storePassword } from './password';
import { addPersonalAccessToken } from './personal-access-tokens';
import { generateKeyPair, createPublicKey } from 'node:crypto';
import { promisify } from 'node:util';
import { and, eq } from 'drizzle-orm';
import { invalidatePat } from '../../authz/authenticate';
import { verifyPassword } from '../../crypto/passwords/index';
import { randomToken } from '../../crypto/random';
import { hashSecret } from '../../crypto/secrets';
import { personalAccessTokens, userKeys, users } from '../../db/schema/index';
import type { Ctx } from '../context';
import { failedPrecondition, invalidArgument, notFound } from '../errors';
import { execute } from '../execute';
import { newId } from '../ids';
import { authorize, readUser, userForChange, userNotFound, type UserWithOrg } from './access';
import { consumeCode, issueCode } from './codes';
import { preparePassword } from './password';
import { checkFutureDate, checkId, checkUrlTemplate } from './validate';

const generateKeyPairAsync = promisify(generateKeyPair);

function requireHuman(user: UserWithOrg): void {
  if (user.type !== 'HUMAN') throw failedPrecondition('Errors.User.NotHuman', 'the user is a machine user');
}

function requireMachine(user: UserWithOrg): void {
  if (user.type !== 'MACHINE') throw failedPrecondition('Errors.User.NotMachine', 'the user is a human user');
}

/**
 * SetPassword. Administrators with `user.credential.write` set it outright; the user itself proves
 * the change with its current password; anyone else allowed to reach the user needs a reset code.
 */
export async function setPassword(
  ctx: Ctx,
  input: {
    userId: string;
    password: string;
    changeRequired?: boolean;
    currentPassword?: string;
    verificationCode?: string;
  },
): Promise<Date> {
  const userId = checkId('user_id', input.userId);
  const before = await readUser(ctx.db, userId);
  if (!before) throw userNotFound();
  authorize(ctx, before, 'user.credential.write', { self: true });
  requireHuman(before);
  const isAdmin = ctx.principal.canOrg('user.credential.write', before.orgId);
  if (input.currentPassword !== undefined) {
    if (!before.passwordHash || !(await verifyPassword(before.passwordHash, input.currentPassword))) {
      throw invalidArgument('Errors.User.Password.Invalid', 'current_password is wrong');
    }
  } else if (input.verificationCode === undefined && !isAdmin) {
    throw invalidArgument('Errors.User.Password.ProofMissing', 'current_password or verification_code is required');
  }
  const password = await preparePassword(ctx, ctx.instanceId, 'new_password', {
    password: input.password,
    changeRequired: input.changeRequired,
  });
  return execute(ctx, async (work) => {
    const user = await userForChange(work, userId, 'user.credential.write', { self: true });
    if (input.verificationCode !== undefined)
      await consumeCode(work, userId, 'PASSWORD_RESET', input.verificationCode, 'verification_code');
    else if (input.currentPassword !== undefined && user.passwordHash !== before.passwordHash) {
      // The password changed between the check and this transaction: the proof is stale.
      throw invalidArgument('Errors.User.Password.Invalid', 'current_password is wrong');
    }
    return storePassword(work, user, password);
  });
}

/** PasswordReset: issues a reset code, sent by email or returned to an administrator. */
export async function passwordReset(
  ctx: Ctx,
  input: { userId: string; delivery: { send: { urlTemplate?: string } } | { return: true } },
): Promise<{ changedAt: Date; code?: string }> {
  const userId = checkId('user_id', input.userId);
  if ('send' in input.delivery) checkUrlTemplate('send_link.url_template', input.delivery.send.urlTemplate);
  return execute(ctx, async (work) => {
    const user = await userForChange(work, userId, 'user.credential.write');
    requireHuman(user);
    if ('send' in input.delivery && !user.email)
      throw failedPrecondition('Errors.User.Email.Missing', 'the user has no email address');
    const code = await issueCode(work, user, 'PASSWORD_RESET', input.delivery, user.email ?? '');
    return { changedAt: new Date(), code };
  });
}

/** AddSecret: a new client secret for a machine user, returned once and stored as a keyed hash. */
export async function addSecret(
  ctx: Ctx,
  input: { userId: string },
): Promise<{ createdAt: Date; clientId: string; clientSecret: string }> {
  const userId = checkId('user_id', input.userId);
  return execute(ctx, async (work) => {
    const user = await userForChange(work, userId, 'user.credential.write');
    requireMachine(user);
    const clientSecret = randomToken(32);
    const now = new Date();
    await work.tx
      .update(users)
      .set({ secretHash: hashSecret(clientSecret), changedAt: now })
      .where(eq(users.id, userId));
    work.push({
      aggregateType: 'user',
      aggregateId: userId,
      type: 'user.machine.secret.set',
      payload: {},
      resourceOwner: user.orgId,
    });
    return { createdAt: now, clientId: user.username, clientSecret };
  });
}

/** RemoveSecret: idempotent; an event only when a secret existed. */
export async function removeSecret(ctx: Ctx, input: { userId: string }): Promise<Date> {
  const userId = checkId('user_id', input.userId);
  return execute(ctx, async (work) => {
    const user = await userForChange(work, userId, 'user.credential.write');
    requireMachine(user);
    const now = new Date();
    if (!user.secretHash) return now;
    await work.tx.update(users).set({ secretHash: null, changedAt: now }).where(eq(users.id, userId));
    work.push({
      aggregateType: 'user',
      aggregateId: userId,
      type: 'user.machine.secret.removed',
      payload: {},
      resourceOwner: user.orgId,
    });
    return now;
  });
}

/** Accepts an uploaded public key (PEM: RSA ≥ 2048 bits or EC) and returns its SPKI PEM. */
function parsePublicKey(pem: string): string {
  let key: ReturnType<typeof createPublicKey>;
  try {
    key = createPublicKey(pem);
  } catch {
    throw invalidArgument('Errors.User.Key.Invalid', 'public_key is not a PEM public key');
  }
  const type = key.asymmetricKeyType;
  if (type === 'rsa') {
    if ((key.asymmetricKeyDetails?.modulusLength ?? 0) < 2048)
      throw invalidArgument('Errors.User.Key.Invalid', 'public_key: RSA keys need at least 2048 bits');
  } else if (type !== 'ec' && type !== 'ed25519') {
    throw invalidArgument('Errors.User.Key.Invalid', 'public_key must be an RSA, EC or Ed25519 key');
  }
  return key.export({ type: 'spki', format: 'pem' }).toString();
}

export interface KeyFile {
  type: 'serviceaccount';
  keyId: string;
  key: string;
  userId: string;
  expirationDate?: string;
}

/**
 * AddKey: registers an uploaded public key, or generates an RSA pair and returns the private key in
 * a key file (shown once; only the public key is stored).
 */
export async function addKey(
  ctx: Ctx,
  input: { userId: string; expiresAt?: Date; publicKey?: string },
): Promise<{ keyId: string; createdAt: Date; keyFile?: KeyFile }> {
  const userId = checkId('user_id', input.userId);
  const expiresAt = checkFutureDate('expiration_date', input.expiresAt);
  let publicKey: string;
  let privateKey: string | undefined;
  if (input.publicKey) {
    publicKey = parsePublicKey(input.publicKey);
  } else {
    const before = await readUser(ctx.db, userId);
    if (!before) throw userNotFound();
    authorize(ctx, before, 'user.credential.write');
    const pair = await generateKeyPairAsync('rsa', {
      modulusLength: 2048,
      publicKeyEncoding: { type: 'spki', format: 'pem' },
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    });
    publicKey = pair.publicKey;
    privateKey = pair.privateKey;
  }
  return execute(ctx, async (work) => {
    const user = await userForChange(work, userId, 'user.credential.write');
    requireMachine(user);
    const keyId = newId();
    const [row] = await work.tx
      .insert(userKeys)
      .values({ id: keyId, userId, publicKey, expiresAt })
      .returning({ createdAt: userKeys.createdAt });
    work.push({
      aggregateType: 'user',
      aggregateId: userId,
      type: 'user.machine.key.added',
      payload: { keyId, type: 'JSON', expirationDate: expiresAt?.toISOString(), generated: !!privateKey },
      resourceOwner: user.orgId,
    });
    const keyFile: KeyFile | undefined = privateKey
      ? {
          type: 'serviceaccount',
          keyId,
          key: privateKey,
          userId,
          ...(expiresAt ? { expirationDate: expiresAt.toISOString() } : {}),
        }
      : undefined;
    return { keyId, createdAt: row.createdAt, keyFile };
  });
}

export async function removeKey(ctx: Ctx, input: { userId: string; keyId: string }): Promise<Date> {
  const userId = checkId('user_id', input.userId);
  const keyId = checkId('key_id', input.keyId);
  return execute(ctx, async (work) => {
    const user = await userForChange(work, userId, 'user.credential.write');
    requireMachine(user);
    const deleted = await work.tx
      .delete(userKeys)
      .where(and(eq(userKeys.id, keyId), eq(userKeys.userId, userId)))
      .returning({ id: userKeys.id });
    if (!deleted.length) throw notFound('Errors.User.Key.NotFound', 'key not found');
    work.push({
      aggregateType: 'user',
      aggregateId: userId,
      type: 'user.machine.key.removed',
      payload: { keyId },
      resourceOwner: user.orgId,
    });
    return new Date();
  });
}

/** AddPersonalAccessToken: machine users only; the token is returned once. */
export async function createPersonalAccessToken(
  ctx: Ctx,
  input: { userId: string; expiresAt?: Date },
): Promise<{ id: string; token: string; createdAt: Date }> {
  const userId = checkId('user_id', input.userId);
  const expiresAt = checkFutureDate('expiration_date', input.expiresAt);
  return execute(ctx, async (work) => {
    const user = await userForChange(work, userId, 'user.credential.write');
    requireMachine(user);
    return addPersonalAccessToken(work, { userId, orgId: user.orgId, expiresAt });
  });
}

export async function removePersonalAccessToken(ctx: Ctx, input: { userId: string; tokenId: string }): Promise<Date> {
  const userId = checkId('user_id', input.userId);
  const tokenId = checkId('token_id', input.tokenId);
  return execute(ctx, async (work) => {
    const user = await userForChange(work, userId, 'user.credential.write');
    const deleted = await work.tx
      .delete(personalAccessTokens)
      .where(and(eq(personalAccessTokens.id, tokenId), eq(personalAccessTokens.userId, userId)))
      .returning({ tokenHash: personalAccessTokens.tokenHash });
    if (!deleted.length) throw notFound('Errors.User.PAT.NotFound', 'personal access token not found');
    // Explicit: the cache key is the token's hash, which stays out of the event (the registry cannot derive it).
    await invalidatePat(work, deleted[0].tokenHash);
    work.push({
      aggregateType: 'user',
      aggregateId: userId,
      type: 'user.personal.access.token.removed',
      payload: { tokenId },
      resourceOwner: user.orgId,
    });
    return new Date();
  });
}
