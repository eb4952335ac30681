import { pbkdf2Sync, randomBytes, scryptSync } from 'node:crypto';
import { hash } from '@node-rs/argon2';
import bcrypt from 'bcryptjs';
import { describe, expect, it } from 'vitest';
import { checkImportedHash, hashPassword, verifyPassword } from '../../src/crypto/passwords/index';

// @node-rs/argon2's Algorithm is a const enum, which isolated modules cannot read: its values.
const ARGON2D = 0;
const ARGON2I = 1;
const ARGON2ID = 2;
const b64 = (b: Buffer) => b.toString('base64');
const adapted = (b: Buffer) => b.toString('base64').replace(/=+$/, '').replaceAll('+', '.');

/** Asserts that `stored` is accepted at import, verifies `password`, and rejects a wrong one. */
async function expectVerifies(stored: string, password: string) {
  expect(checkImportedHash(stored)).toBeUndefined();
  expect(await verifyPassword(stored, password)).toBe(true);
  expect(await verifyPassword(stored, `${password}x`)).toBe(false);
}

describe('imported password hash formats', () => {
  it('pbkdf2 with sha1, sha256 and sha512, any key length, standard or adapted base64', async () => {
    const salt = randomBytes(16);
    for (const [name, digest] of [
      ['pbkdf2', 'sha1'],
      ['pbkdf2-sha1', 'sha1'],
      ['pbkdf2-sha256', 'sha256'],
      ['pbkdf2-sha512', 'sha512'],
    ]) {
      for (const keyLength of [20, 32, 64]) {
        const key = pbkdf2Sync('s3cret pässword', salt, 1000, keyLength, digest);
        await expectVerifies(`$${name}$1000$${b64(salt)}$${b64(key)}`, 's3cret pässword');
        await expectVerifies(`$${name}$1000$${adapted(salt)}$${adapted(key)}`, 's3cret pässword');
      }
    }
  });

  it('bcrypt 2a, 2b and 2y', async () => {
    const h = await bcrypt.hash('hunter2', 4);
    for (const variant of ['2a', '2b', '2y']) await expectVerifies(`$${variant}${h.slice(3)}`, 'hunter2');
  });

  it('scrypt in the passlib form', async () => {
    const salt = Buffer.from('saltsaltsaltsalt');
    const key = scryptSync('secret', salt, 32, { N: 1024, r: 8, p: 1 });
    await expectVerifies(`$scrypt$ln=10,r=8,p=1$${adapted(salt)}$${adapted(key)}`, 'secret');
  });

  it('md5-crypt, sha256-crypt and sha512-crypt (vectors from openssl passwd)', async () => {
    await expectVerifies('$1$abcdefgh$rwnEbRiN0agqVgZBovWNQ/', 'hello');
    await expectVerifies('$1$x$JCGkBY00FL7KZ2Wf1VmLX.', 'pässwörd');
    expect(await verifyPassword('$1$ab$rn6aQS/o7141mj179E/zA.', '')).toBe(true);
    await expectVerifies('$5$abcdefgh$UUoko/Tf0b.8LrDH6BE28ZvVbc7xd//GfzsD0NKugU7', 'hello');
    await expectVerifies('$5$rounds=1000$saltsalt$eNI.02a9Kos9UxzxjTLpNZ6kYHkRe9Z8OsGkDDoW/X2', 'pw');
    await expectVerifies(
      '$6$abcdefgh$bp46WUxDu2cphMRE0PvVJlqas2imuSq186YS793XKfmqn9XUEL17HECskUTZInaNigNndLLYc7A6yWBmFEFn3/',
      'hello',
    );
    await expectVerifies(
      '$6$rounds=20000$0123456789abcdef$' +
        'R7EMmjkmP.p72ZnruCAmWZ34NveEC0GXuoXIi8D3IR3CQz/dRhua01QLYZWe9GMqUuZ/Uok4Vu1sAYBr42C1j.',
      'correct horse',
    );
  });

  it('argon2i and argon2id with any parameters, and our own hashes', async () => {
    await expectVerifies(
      await hash('frodo', { algorithm: ARGON2I, memoryCost: 4096, timeCost: 3, parallelism: 2 }),
      'frodo',
    );
    await expectVerifies(
      await hash('frodo', { algorithm: ARGON2ID, memoryCost: 7168, timeCost: 5, parallelism: 1, outputLen: 64 }),
      'frodo',
    );
    await expectVerifies(
      await hash('sam', { algorithm: ARGON2D, memoryCost: 4096, timeCost: 2, parallelism: 1 }),
      'sam',
    );
    // Argon2 version 1.0 (v=16), which Keycloak writes when configured with version 1.0.
    await expectVerifies(
      await hash('sam', { algorithm: ARGON2ID, memoryCost: 4096, timeCost: 2, parallelism: 1, version: 0 }),
      'sam',
    );
    await expectVerifies(await hashPassword('new one'), 'new one');
  });

  it('names what is wrong with unsupported or malformed hashes', () => {
    expect(checkImportedHash('plaintext')).toBe('unsupported password hash format');
    expect(checkImportedHash('{SSHA}abcdef')).toBe('unsupported password hash format');
    expect(checkImportedHash('$pbkdf2-sha256$27500$!!!$abcd')).toMatch(/salt/);
    expect(checkImportedHash('$pbkdf2-sha256$0$c2FsdA$YWJjZGVmZ2hpamtsbW5vcA')).toMatch(/iterations/);
    expect(checkImportedHash('$pbkdf2-md5$1000$c2FsdA$YWJjZGVmZ2hpamtsbW5vcA')).toBe(
      'unsupported password hash format',
    );
    expect(checkImportedHash('$2b$99$abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyza')).toMatch(/cost/);
    expect(checkImportedHash('$6$rounds=999999999$salt$' + 'a'.repeat(86))).toMatch(/rounds/);
    expect(checkImportedHash('$argon2id$v=19$m=99999999,t=1,p=1$c2FsdHNhbHQ$aGFzaGhhc2g')).toMatch(/malformed|memory/);
    expect(checkImportedHash('$scrypt$ln=30,r=8,p=1$c2FsdA$YWJjZGVmZ2hpamtsbW5vcA')).toMatch(/256 MiB/);
  });

  it('never verifies against a malformed hash', async () => {
    expect(await verifyPassword('$pbkdf2-sha256$1000$$', '')).toBe(false);
    expect(await verifyPassword('', '')).toBe(false);
  });
});
