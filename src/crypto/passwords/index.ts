import { checkArgon2 } from './argon2';
import { verifyArgon2 } from './argon2id';
import { checkBcrypt, verifyBcrypt } from './bcrypt';
import { checkMd5Crypt, verifyMd5Crypt } from './md5-crypt';
import { parsePbkdf2, verifyPbkdf2 } from './pbkdf2';
import { parseScrypt, verifyScrypt } from './scrypt';
import { checkShaCrypt, verifyShaCrypt } from './sha-crypt';

export { hashPassword, needsRehash } from './argon2id';

interface HashFormat {
  /** recognises the scheme by its modular-crypt prefix */
  prefix: RegExp;
  /** an error message when the string is not a verifiable hash of this scheme */
  check(stored: string): string | undefined;
  verify(stored: string, password: string): Promise<boolean>;
}

const asCheck = (parse: (s: string) => unknown) => (s: string) => {
  const r = parse(s);
  return typeof r === 'string' ? r : undefined;
};

/** Every scheme we verify; docs/password-hashes.md documents each form. */
const FORMATS: HashFormat[] = [
  { prefix: /^\$argon2(id|i|d)\$/, check: checkArgon2, verify: verifyArgon2 },
  { prefix: /^\$pbkdf2(-sha1|-sha256|-sha512)?\$/, check: asCheck(parsePbkdf2), verify: verifyPbkdf2 },
  { prefix: /^\$2[abxy]\$/, check: checkBcrypt, verify: verifyBcrypt },
  { prefix: /^\$scrypt\$/, check: asCheck(parseScrypt), verify: verifyScrypt },
  { prefix: /^\$1\$/, check: checkMd5Crypt, verify: verifyMd5Crypt },
  { prefix: /^\$[56]\$/, check: checkShaCrypt, verify: verifyShaCrypt },
];

const formatOf = (stored: string) => FORMATS.find((f) => f.prefix.test(stored));

/** Verifies a password against a stored hash in whichever supported scheme it is written. */
export async function verifyPassword(stored: string, password: string): Promise<boolean> {
  const format = formatOf(stored);
  if (!format || format.check(stored)) return false;
  return format.verify(stored, password);
}

/**
 * Checks that a hash given by an API caller or an import is in a format we can verify later: returns
 * the reason when it is not (unsupported scheme, malformed string, parameters beyond our limits).
 */
export function checkImportedHash(stored: string): string | undefined {
  const format = formatOf(stored);
  if (!format) return 'unsupported password hash format';
  return format.check(stored);
}
