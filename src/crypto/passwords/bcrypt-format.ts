// The form without the computation (bcrypt.ts): the Keycloak converter runs in the browser too.
const FORM = /^\$2[abxy]\$(\d{2})\$[./A-Za-z0-9]{53}$/;

/** `$2a$`, `$2b$`, `$2y$` (and `$2x$`, treated as 2a) with a cost from 4 to 31. */
export function checkBcrypt(stored: string): string | undefined {
  const m = FORM.exec(stored);
  if (!m) return 'malformed bcrypt hash: expected $2b$<cost>$<53 characters>';
  const cost = Number(m[1]);
  if (cost < 4 || cost > 31) return 'bcrypt cost must be between 4 and 31';
  return undefined;
}
