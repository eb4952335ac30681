import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkImportedHash, verifyPassword } from '../../src/crypto/passwords/index';
import { convertToBody, FIXTURES } from './run-cli';

/** The real exports in shared/fixtures/keycloak and the passwords their README lists. */
const CASES: { files: string[]; passwords: Record<string, string>; algorithm: string; skipped?: number }[] = [
  { files: ['kc23-realm-users-inside.json'], passwords: { admin: 'admin', user: 'user' }, algorithm: 'pbkdf2-sha256' },
  { files: ['kc11-users-0.json'], passwords: { admin: 'admin', user: 'user' }, algorithm: 'pbkdf2-sha256' },
  { files: ['kc3-legacy-users-0.json'], passwords: { admin: 'admin', user: 'user' }, algorithm: 'pbkdf2-sha256' },
  {
    files: ['kc24-realm.json', 'kc24-users-0.json'],
    passwords: { test: '1234' },
    algorithm: 'pbkdf2-sha512',
    skipped: 3,
  },
  {
    files: ['kc26-argon2-users-0.json'],
    passwords: { bilbo: 'bilbo', frodo: 'frodo', gimli: 'gimli' },
    algorithm: 'argon2id',
    skipped: 5,
  },
];

describe('known-answer conversion of real Keycloak exports', () => {
  for (const c of CASES) {
    it(`${c.files.join(' + ')}: every known password verifies against the emitted hash, wrong ones fail`, async () => {
      const { users, stderr } = await convertToBody(c.files.map((f) => `--realm=${join(FIXTURES, f)}`));
      expect(stderr).toContain(`${c.algorithm} (`);
      for (const [username, password] of Object.entries(c.passwords)) {
        const entry = users.find((u) => u.user.userName === username);
        expect(entry, username).toBeDefined();
        const hash = entry.user.hashedPassword.value;
        expect(checkImportedHash(hash)).toBeUndefined();
        expect(await verifyPassword(hash, password)).toBe(true);
        expect(await verifyPassword(hash, `${password}-wrong`)).toBe(false);
      }
      expect(users).toHaveLength(Object.keys(c.passwords).length);
      if (c.skipped) expect(stderr).toContain(`Skipped ${c.skipped} user(s)`);
    });
  }

  it('kc22: the pbkdf2-sha256 hash with a 32-byte key is emitted in a verifiable form', async () => {
    const { users } = await convertToBody([`--realm=${join(FIXTURES, 'kc22-realm-minimal.json')}`]);
    expect(users).toHaveLength(1);
    expect(users[0].user.hashedPassword.value).toMatch(/^\$pbkdf2-sha256\$27500\$/);
    expect(checkImportedHash(users[0].user.hashedPassword.value)).toBeUndefined();
    expect(await verifyPassword(users[0].user.hashedPassword.value, 'not the password')).toBe(false);
  });

  it('maps the profile: id kept, names, display name fallback, email verification', async () => {
    const { users, org } = await convertToBody([`--realm=${join(FIXTURES, 'kc23-realm-users-inside.json')}`]);
    const admin = users.find((u) => u.user.userName === 'admin');
    expect(admin.userId).toBe('4c973896-5761-41fc-8217-07c5d13a004b');
    expect(admin.user.profile).toEqual({
      firstName: 'Admin',
      lastName: 'Administrator',
      displayName: 'Admin Administrator',
    });
    expect(admin.user.email).toEqual({ email: 'admin@localhost', isEmailVerified: true });
    // "user" has an empty first name: the username stands in, the display name uses the real names only.
    const user = users.find((u) => u.user.userName === 'user');
    expect(user.user.profile).toEqual({ firstName: 'user', lastName: 'User', displayName: 'User' });
    expect(org.orgId).toBe('org-1');
    expect(org.org.name).toBeTruthy();
  });

  it('kc26: attributes become user metadata (multi-valued ones as a JSON array)', async () => {
    const { org } = await convertToBody([`--realm=${join(FIXTURES, 'kc26-argon2-users-0.json')}`]);
    const frodo = '7c07b850-cf34-4a65-b640-697ab35337b6';
    const meta = Object.fromEntries(
      org.userMetadata
        .filter((m: any) => m.id === frodo)
        .map((m: any) => [m.key, Buffer.from(m.value, 'base64').toString()]),
    );
    expect(meta).toEqual({ race: 'HOBBIT', waist: '80', age: '33' });
    const cell = org.userMetadata.find((m: any) => m.key === 'cell');
    expect(JSON.parse(Buffer.from(cell.value, 'base64').toString()).slice(0, 3)).toEqual(['0', '1', '2']);
  });
});
