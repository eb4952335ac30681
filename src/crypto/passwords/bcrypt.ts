import bcrypt from 'bcryptjs';
import { checkBcrypt } from './bcrypt-format';

export { checkBcrypt } from './bcrypt-format';

export async function verifyBcrypt(stored: string, password: string): Promise<boolean> {
  if (checkBcrypt(stored)) return false;
  // bcryptjs knows 2a/2b/2y; 2x (the old buggy PHP variant) is only safe to check as 2a.
  const normalized = stored.startsWith('$2x$') ? `$2a$${stored.slice(4)}` : stored;
  try {
    return await bcrypt.compare(password, normalized);
  } catch {
    return false;
  }
}
