import { humanAddedPayload, machineAddedPayload } from '../user/event-payloads';
import os from 'node:os';
import { checkImportedHash, hashPassword } from '../../crypto/passwords/index';
import { DomainError } from '../errors';
import { newId } from '../ids';
import {
  checkEmail,
  checkId,
  checkLanguage,
  checkMachineUsername,
  checkPhone,
  checkUsername,
  requireText,
} from '../user/validate';
import { usernameScope } from '../user/username-scope';
import type { HumanAddedPayload } from '../events/types/user';
import type { EventRow, BulkUserRow } from './bulk';
import type { ImportError, ImportHuman, ImportMachine } from './model';

/** A user of the import body that passed its own checks, ready to be written. */
export interface Account {
  kind: 'human_user' | 'machine_user';
  id: string;
  username: string;
  row: BulkUserRow;
  event: Omit<EventRow<'user.human.added' | 'user.machine.added'>, 'sequence'>;
  /** plain password still to hash (humans only) */
  password?: string;
  /** a TOTP secret came along: the user gets a second event recording it (without the secret) */
  otp?: boolean;
}

/** True when a check of the user commands (domain/user/validate.ts) accepts the value. */
function passes(check: () => unknown): boolean {
  try {
    check();
    return true;
  } catch (err) {
    if (err instanceof DomainError) return false;
    throw err;
  }
}

/**
 * Checks one human user of the body with the same rules as CreateUser; the error key, or undefined
 * when it can be imported.
 */
export function checkHuman(h: ImportHuman): string | undefined {
  if (h.userId !== undefined && !passes(() => checkId('userId', h.userId))) return 'Errors.User.Invalid';
  if (!passes(() => checkUsername('userName', h.username))) return 'Errors.User.Username.Invalid';
  if (!passes(() => checkEmail('email', h.email))) return 'Errors.User.Email.Invalid';
  if (h.phone !== undefined && !passes(() => checkPhone('phone', h.phone))) return 'Errors.User.Phone.Invalid';
  if (!passes(() => checkLanguage('preferredLanguage', h.preferredLanguage))) return 'Errors.User.Invalid';
  // names may be missing in an import (the display name falls back), but never hold control characters
  for (const [field, v] of [
    ['firstName', h.firstName],
    ['lastName', h.lastName],
    ['nickName', h.nickName],
  ] as const) {
    if (v && !passes(() => requireText(field, v))) return 'Errors.User.Invalid';
  }
  if (h.passwordHash !== undefined && checkImportedHash(h.passwordHash)) return 'Errors.User.Password.HashUnsupported';
  if (h.password !== undefined && h.password.length === 0) return 'Errors.User.Password.Invalid';
  if (h.otpSecret !== undefined && !/^[A-Z2-7]{16,}=*$/i.test(h.otpSecret)) return 'Errors.User.MFA.OTP.Invalid';
  return undefined;
}

export function humanAccount(orgId: string, h: ImportHuman, mustBeDomain: boolean): Account {
  const id = h.userId || newId();
  const displayName = h.displayName || `${h.firstName} ${h.lastName}`.trim() || h.username;
  // v1 semantics: a user with neither a password nor a verified email starts INITIAL.
  const state =
    h.state ?? (h.password === undefined && h.passwordHash === undefined && !h.emailVerified ? 'INITIAL' : 'ACTIVE');
  return {
    kind: 'human_user',
    id,
    username: h.username,
    password: h.password,
    otp: h.otpSecret !== undefined,
    row: {
      id,
      org_id: orgId,
      type: 'HUMAN',
      state,
      username: h.username,
      username_scope: usernameScope('HUMAN', orgId, mustBeDomain),
      given_name: h.firstName,
      family_name: h.lastName,
      nick_name: h.nickName ?? null,
      display_name: displayName,
      preferred_language: h.preferredLanguage ?? null,
      gender: h.gender ?? null,
      email: h.email,
      email_verified: h.emailVerified,
      phone: h.phone ?? null,
      phone_verified: h.phoneVerified,
      password_hash: h.passwordHash ?? null,
      password_change_required: h.passwordChangeRequired,
      otp_secret: h.otpSecret?.toUpperCase() ?? null,
    },
    event: {
      aggregate_type: 'user',
      aggregate_id: id,
      event_type: 'user.human.added',
      resource_owner: orgId,
      payload: humanAddedPayload({
        username: h.username,
        givenName: h.firstName,
        familyName: h.lastName,
        nickName: h.nickName,
        displayName,
        preferredLanguage: h.preferredLanguage,
        gender: h.gender,
        email: h.email,
        emailVerified: h.emailVerified,
        phone: h.phone,
        passwordHash: h.passwordHash,
        passwordChangeRequired: h.passwordChangeRequired,
      }),
    },
  };
}

export function checkMachine(m: ImportMachine): string | undefined {
  if (m.userId !== undefined && !passes(() => checkId('userId', m.userId))) return 'Errors.User.Invalid';
  if (!passes(() => checkMachineUsername('userName', m.username))) return 'Errors.User.Username.Invalid';
  return undefined;
}

export function machineAccount(orgId: string, m: ImportMachine): Account {
  const id = m.userId || newId();
  const name = m.name || m.username;
  return {
    kind: 'machine_user',
    id,
    username: m.username,
    row: {
      id,
      org_id: orgId,
      type: 'MACHINE',
      state: 'ACTIVE',
      username: m.username,
      username_scope: usernameScope('MACHINE', orgId, false),
      machine_name: name,
      description: m.description ?? null,
      access_token_type: m.accessTokenType,
    },
    event: {
      aggregate_type: 'user',
      aggregate_id: id,
      event_type: 'user.machine.added',
      resource_owner: orgId,
      payload: machineAddedPayload({
        username: m.username,
        name,
        description: m.description,
        accessTokenType: m.accessTokenType,
      }),
    },
  };
}

/**
 * Drops accounts that repeat a user id, or a username in the same scope (see username-scope.ts), of an
 * earlier account in the same body, as errors; the first occurrence wins. Usernames compare
 * case-insensitively, like the unique index.
 */
export function dropRepeats(
  accounts: Account[],
  errors: ImportError[],
  seenIds: Set<string>,
  seenNames: Set<string>,
): Account[] {
  const kept: Account[] = [];
  for (const a of accounts) {
    const name = usernameKey(a.row.username_scope, a.username);
    if (seenIds.has(a.id) || seenNames.has(name)) {
      errors.push({ type: a.kind, id: a.id, key: 'Errors.User.AlreadyExisting' });
      continue;
    }
    seenIds.add(a.id);
    seenNames.add(name);
    kept.push(a);
  }
  return kept;
}

/**
 * Hashes the plain passwords with argon2id. The native library hashes on its own threads, so several
 * hashes run at once (bounded, to cap memory: each argon2id hash holds its 19 MiB while it runs).
 */
export async function hashPlainPasswords(accounts: Account[], checkDeadline: () => void): Promise<void> {
  const pending = accounts.filter((a) => a.password !== undefined);
  const width = Math.max(2, os.availableParallelism());
  let next = 0;
  const worker = async () => {
    while (next < pending.length) {
      checkDeadline();
      const a = pending[next++];
      const hash = await hashPassword(a.password!);
      a.row.password_hash = hash;
      // Only people come with a plain password.
      (a.event.payload as HumanAddedPayload).passwordHash = hash;
      a.password = undefined;
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, pending.length) }, worker));
}

/** A username in its scope, as the unique index compares them. */
export function usernameKey(scope: string, username: string): string {
  return `${scope}\u0000${username.toLowerCase()}`;
}
