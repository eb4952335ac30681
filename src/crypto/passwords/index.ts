import { verifyArgon2 } from './argon2id';

export { hashPassword, needsRehash } from './argon2id';

/**
 * Verifies a password against a stored hash in whatever supported scheme it is. Imported formats are
 * recognised by their prefix; see formats.ts for the list.
 */
export async function verifyPassword(stored: string, password: string): Promise<boolean> {
  if (stored.startsWith('$argon2')) return verifyArgon2(stored, password);
  return false;
}

/** Checks that a hash given by an API caller or an import is in a format we can verify later. */
export function checkImportedHash(stored: string): string | undefined {
  if (/^\$argon2(id|i)\$v=\d+\$m=\d+,t=\d+,p=\d+\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/.test(stored)) return undefined;
  return 'unsupported password hash format';
}
