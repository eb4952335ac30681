import { eq } from 'drizzle-orm';
import { checkImportedHash, hashPassword } from '../../crypto/passwords/index';
import type { Db } from '../../db/client';
import { DEFAULT_INSTANCE_SETTINGS, instances } from '../../db/schema/index';
import { invalidArgument } from '../errors';

export interface PasswordPolicy {
  minLength: number;
  requireUppercase: boolean;
  requireLowercase: boolean;
  requireNumber: boolean;
  requireSymbol: boolean;
}

/** The instance's password complexity policy (instances.settings). */
export async function passwordPolicy(db: Db, instanceId: string): Promise<PasswordPolicy> {
  const [row] = await db.select({ settings: instances.settings }).from(instances).where(eq(instances.id, instanceId));
  const s = { ...DEFAULT_INSTANCE_SETTINGS, ...(row?.settings ?? {}) };
  return {
    minLength: s.passwordMinLength,
    requireUppercase: s.passwordRequireUppercase,
    requireLowercase: s.passwordRequireLowercase,
    requireNumber: s.passwordRequireNumber,
    requireSymbol: s.passwordRequireSymbol,
  };
}

/** Rejects a password the policy does not allow, naming the field and the unmet rule. */
export function checkPasswordPolicy(field: string, password: string, policy: PasswordPolicy): void {
  const fail = (why: string) => invalidArgument('Errors.User.PasswordComplexityPolicy', `${field} ${why}`);
  if (!password) throw invalidArgument('Errors.User.Password.Empty', `${field} is required`);
  if (password.length > 1000) throw fail('must be at most 1000 characters');
  if (password.length < policy.minLength) throw fail(`must be at least ${policy.minLength} characters`);
  if (policy.requireUppercase && !/\p{Lu}/u.test(password)) throw fail('must contain an uppercase letter');
  if (policy.requireLowercase && !/\p{Ll}/u.test(password)) throw fail('must contain a lowercase letter');
  if (policy.requireNumber && !/\p{N}/u.test(password)) throw fail('must contain a number');
  if (policy.requireSymbol && !/[^\p{L}\p{N}]/u.test(password)) throw fail('must contain a symbol');
}

export type PasswordInput = { password: string; changeRequired?: boolean } | { hash: string; changeRequired?: boolean };

/**
 * Turns a plain password (checked against the policy, hashed with argon2id) or an imported hash
 * (format checked) into what is stored. Runs before the transaction: hashing takes milliseconds.
 */
export async function preparePassword(
  db: Db,
  instanceId: string,
  field: string,
  input: PasswordInput,
): Promise<{ hash: string; changeRequired: boolean }> {
  if ('hash' in input) {
    if (!input.hash) throw invalidArgument('Errors.User.Password.Hash.Empty', `${field}.hash is required`);
    const problem = checkImportedHash(input.hash);
    if (problem) throw invalidArgument('Errors.User.Password.Hash.Invalid', `${field}.hash: ${problem}`);
    return { hash: input.hash, changeRequired: input.changeRequired ?? false };
  }
  checkPasswordPolicy(`${field}.password`, input.password, await passwordPolicy(db, instanceId));
  return { hash: await hashPassword(input.password), changeRequired: input.changeRequired ?? false };
}
