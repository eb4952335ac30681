import { eq } from 'drizzle-orm';
import { users } from '../../db/schema/index';
import type { UnitOfWork } from '../execute';
import type { UserWithOrg } from './access';
import { checkImportedHash, hashPassword } from '../../crypto/passwords/index';
import { invalidArgument } from '../errors';
import { checkPasswordPolicy, getInstanceSettings } from '../instance/settings';
import type { Source } from '../context';

export type PasswordInput = { password: string; changeRequired?: boolean } | { hash: string; changeRequired?: boolean };

/**
 * Turns a plain password (checked against the policy, hashed with argon2id) or an imported hash
 * (format checked) into what is stored. Runs before the transaction: hashing takes milliseconds.
 */
export async function preparePassword(
  src: Source,
  instanceId: string,
  field: string,
  input: PasswordInput,
  /** the field that holds the plain password in errors; default `<field>.password` */
  plainField = `${field}.password`,
): Promise<{ hash: string; changeRequired: boolean }> {
  if ('hash' in input) {
    if (!input.hash) throw invalidArgument('Errors.User.Password.Hash.Empty', `${field}.hash is required`);
    const problem = checkImportedHash(input.hash);
    if (problem) throw invalidArgument('Errors.User.Password.Hash.Invalid', `${field}.hash: ${problem}`);
    return { hash: input.hash, changeRequired: input.changeRequired ?? false };
  }
  if (!input.password) throw invalidArgument('Errors.User.Password.Empty', `${plainField} is required`);
  if (input.password.length > 1000)
    throw invalidArgument('Errors.User.PasswordComplexity', `${plainField} must be at most 1000 characters`);
  // The one complexity rule of the instance (also used by CreateOrganization's admins and the login).
  checkPasswordPolicy(await getInstanceSettings(src, instanceId), input.password, plainField);
  return { hash: await hashPassword(input.password), changeRequired: input.changeRequired ?? false };
}

/** A human's password as CreateUser and UpdateUser take it: `human.password` or `human.hashed_password`. */
export function prepareHumanPassword(
  src: Source,
  instanceId: string,
  input: PasswordInput,
): Promise<{ hash: string; changeRequired: boolean }> {
  return preparePassword(src, instanceId, 'hash' in input ? 'human.hashed_password' : 'human.password', input);
}

/** Stores a prepared password hash and records the change. */
export async function storePassword(
  work: UnitOfWork,
  user: UserWithOrg,
  password: { hash: string; changeRequired: boolean },
): Promise<Date> {
  const now = new Date();
  await work.tx
    .update(users)
    .set({
      passwordHash: password.hash,
      passwordChangeRequired: password.changeRequired,
      passwordChangedAt: now,
      failedPasswordAttempts: 0,
      changedAt: now,
    })
    .where(eq(users.id, user.id));
  work.push({
    aggregateType: 'user',
    aggregateId: user.id,
    type: 'user.human.password.changed',
    // No hash in the event: the hash lives in the projection only, so the audit log never carries it.
    payload: { changeRequired: password.changeRequired },
    resourceOwner: user.orgId,
  });
  return now;
}
