import { pbkdf2, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import { parsePbkdf2 } from './pbkdf2-format';

export { parsePbkdf2 } from './pbkdf2-format';

const pbkdf2Async = promisify(pbkdf2);

export async function verifyPbkdf2(stored: string, password: string): Promise<boolean> {
  const h = parsePbkdf2(stored);
  if (typeof h === 'string') return false;
  const derived = await pbkdf2Async(password, h.salt, h.iterations, h.key.length, h.digest);
  return timingSafeEqual(derived, h.key);
}
