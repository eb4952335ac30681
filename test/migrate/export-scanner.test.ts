import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ExportScanner } from '../../src/cli/migrate/keycloak/export-scanner';
import { JsonSyntaxError } from '../../src/cli/migrate/keycloak/json-errors';
import { FIXTURES } from './run-cli';

/** Feeds `bytes` to a scanner in pieces of `size` bytes and collects what it reports. */
function scan(bytes: Buffer, size: number) {
  const realms: { fields: Record<string, unknown>; users: unknown[] }[] = [];
  const scanner = new ExportScanner('input.json', {
    realmStart: () => realms.push({ fields: {}, users: [] }),
    field: (key, value) => {
      realms.at(-1)!.fields[key] = value;
    },
    user: (value) => realms.at(-1)!.users.push(value),
    realmEnd: () => {},
  });
  for (let i = 0; i < bytes.length; i += size) scanner.write(bytes.subarray(i, i + size));
  scanner.end();
  return realms;
}

function errorOf(bytes: Buffer, size: number): JsonSyntaxError {
  try {
    scan(bytes, size);
  } catch (err) {
    if (err instanceof JsonSyntaxError) return err;
    throw err;
  }
  throw new Error('no error');
}

describe('streaming export scanner', () => {
  it('reads every fixture identically whatever the chunk boundaries', () => {
    for (const name of ['kc24-realm.json', 'kc26-argon2-users-0.json', 'kc3-legacy-users-0.json']) {
      const bytes = readFileSync(join(FIXTURES, name));
      const whole = JSON.parse(bytes.toString('utf8'));
      for (const size of [1, 7, 4096, bytes.length]) {
        const [realm] = scan(bytes, size);
        expect(realm.users, `${name} in ${size}-byte chunks`).toEqual(whole.users ?? []);
        expect(realm.fields.realm).toBe(whole.realm);
      }
    }
  });

  it('reads every "users" array of a realm (kc23 really has two; JSON.parse would keep only the last)', () => {
    const [realm] = scan(readFileSync(join(FIXTURES, 'kc23-realm-users-inside.json')), 1000);
    expect(realm.users.map((u: any) => u.username)).toEqual(['service-account-internal', 'admin', 'user']);
  });

  it('handles escapes, unicode, numbers and a multi-realm array split anywhere', () => {
    const doc = [
      { realm: 'a"\\b', n: -1.5e3, ok: true, none: null, users: [{ id: 'x', username: 'zoë \u2603 "q" \\' }] },
      { realm: 'second', users: [] },
    ];
    const bytes = Buffer.from(`\ufeff${JSON.stringify(doc)}`);
    for (const size of [1, 2, 3, 5]) {
      const realms = scan(bytes, size);
      expect(realms.map((r) => ({ ...r.fields, users: r.users }))).toEqual(doc);
    }
  });

  it('reports the same line and column for an error whatever the chunk size', () => {
    const bytes = Buffer.from('{\n  "realm": "r",\n  "users": [\n    {"id": "a", "x": [1, 2}\n  ]\n}');
    for (const size of [1, 3, 64]) {
      const err = errorOf(bytes, size);
      expect(err.position).toMatchObject({ line: 4, column: 27 });
    }
    expect(errorOf(Buffer.from('{"realm": "r"} trailing'), 4).detail).toMatch(/after the end/);
    expect(errorOf(Buffer.from(''), 4).detail).toMatch(/empty/);
    expect(errorOf(Buffer.from('"just a string"'), 4).detail).toMatch(/realm export/);
  });
});
