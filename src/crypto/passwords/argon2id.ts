import { hash, verify } from '@node-rs/argon2';

/** Parameters for new password hashes: OWASP's argon2id baseline (19 MiB, t=2, p=1). */
const ARGON2ID_PARAMS = {
  algorithm: 2 /* Algorithm.Argon2id (a const enum, not importable under isolatedModules) */,
  memoryCost: 19456,
  timeCost: 2,
  parallelism: 1,
};

/** Hashes a password with argon2id on the native library's threads (the event loop stays free). */
export function hashPassword(password: string): Promise<string> {
  return hash(password, ARGON2ID_PARAMS);
}

export async function verifyArgon2(phc: string, password: string): Promise<boolean> {
  try {
    return await verify(phc, password);
  } catch {
    return false;
  }
}

/** True when a stored hash is not the current argon2id form and should be replaced after login. */
export function needsRehash(stored: string): boolean {
  const m = /^\$argon2id\$v=19\$m=(\d+),t=(\d+),p=(\d+)\$/.exec(stored);
  if (!m) return true;
  return Number(m[1]) < ARGON2ID_PARAMS.memoryCost || Number(m[2]) < ARGON2ID_PARAMS.timeCost;
}
