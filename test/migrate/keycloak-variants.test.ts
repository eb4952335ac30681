import { pbkdf2Sync } from 'node:crypto';
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { verifyPassword } from '../../src/crypto/passwords/index';
import { convertToBody, FIXTURES, portcullis, tempDir, writeExport } from './run-cli';

const SALT = Buffer.from('0123456789abcdef');
const b64 = (b: Buffer) => b.toString('base64');

/** A Keycloak 10+ password credential (secretData/credentialData as JSON strings). */
function pbkdf2Credential(
  password: string,
  algorithm: string,
  digest: string,
  iterations: number,
  keyLength: number,
  asObjects = false,
) {
  const secretData = {
    value: b64(pbkdf2Sync(password, SALT, iterations, keyLength, digest)),
    salt: b64(SALT),
    additionalParameters: {},
  };
  const credentialData = { hashIterations: iterations, algorithm, additionalParameters: {} };
  return {
    type: 'password',
    secretData: asObjects ? secretData : JSON.stringify(secretData),
    credentialData: asObjects ? credentialData : JSON.stringify(credentialData),
  };
}

const user = (name: string, extra: Record<string, unknown> = {}) => ({
  id: `id-${name}`,
  username: name,
  firstName: name.toUpperCase(),
  lastName: 'Tester',
  email: `${name}@example.com`,
  emailVerified: true,
  enabled: true,
  ...extra,
});

/** One realm holding a user per variant; converted once for all the tests below. */
const VARIANTS = {
  realm: 'variants',
  displayName: 'Variant Realm',
  users: [
    user('sha1', { credentials: [pbkdf2Credential('pw-sha1', 'pbkdf2', 'sha1', 20000, 20)] }),
    user('sha256short', { credentials: [pbkdf2Credential('pw-256', 'pbkdf2-sha256', 'sha256', 1000, 32)] }),
    user('sha512', { credentials: [pbkdf2Credential('pw-512', 'pbkdf2-sha512', 'sha512', 30000, 64)] }),
    user('objects', { credentials: [pbkdf2Credential('pw-obj', 'pbkdf2-sha256', 'sha256', 27500, 64, true)] }),
    user('legacy', {
      credentials: [
        {
          type: 'password',
          hashedSaltedValue: b64(pbkdf2Sync('pw-legacy', SALT, 1000, 64, 'sha1')),
          salt: b64(SALT),
          hashIterations: 1000,
          algorithm: 'pbkdf2',
        },
      ],
    }),
    user('bcrypt', {
      credentials: [
        {
          type: 'password',
          secretData: JSON.stringify({ value: bcrypt.hashSync('pw-bcrypt', 4) }),
          credentialData: '{"algorithm":"bcrypt","hashIterations":4}',
        },
      ],
    }),
    user('noemail', {
      email: undefined,
      emailVerified: false,
      credentials: [pbkdf2Credential('pw', 'pbkdf2-sha256', 'sha256', 1000, 32)],
    }),
    user('disabled', { enabled: false, credentials: [pbkdf2Credential('pw', 'pbkdf2-sha256', 'sha256', 1000, 32)] }),
    user('mustchange', {
      requiredActions: ['VERIFY_EMAIL', 'UPDATE_PASSWORD'],
      credentials: [pbkdf2Credential('pw', 'pbkdf2-sha256', 'sha256', 1000, 32)],
    }),
    user('otptext', {
      credentials: [
        pbkdf2Credential('pw', 'pbkdf2-sha256', 'sha256', 1000, 32),
        {
          type: 'otp',
          secretData: '{"value":"abcdefghij"}',
          credentialData: '{"subType":"totp","digits":6,"counter":0,"period":30,"algorithm":"HmacSHA1"}',
        },
      ],
    }),
    user('otpbase32', {
      credentials: [
        pbkdf2Credential('pw', 'pbkdf2-sha256', 'sha256', 1000, 32),
        {
          type: 'otp',
          secretData: '{"value":"JBSWY3DPEHPK3PXP"}',
          credentialData: '{"subType":"totp","digits":6,"period":30,"algorithm":"HmacSHA1","secretEncoding":"BASE32"}',
        },
      ],
    }),
    user('legacytotp', {
      credentials: [
        pbkdf2Credential('pw', 'pbkdf2-sha256', 'sha256', 1000, 32),
        { type: 'totp', value: 'abcdefghij', digits: 6, period: 30, algorithm: 'HmacSHA1' },
      ],
    }),
    user('hotp', {
      credentials: [
        pbkdf2Credential('pw', 'pbkdf2-sha256', 'sha256', 1000, 32),
        { type: 'otp', secretData: '{"value":"x"}', credentialData: '{"subType":"hotp"}' },
      ],
    }),
    user('nocreds', { credentials: [] }),
    user('federated', { federationLink: 'ldap-1' }),
    user('md5', {
      credentials: [
        {
          type: 'password',
          secretData: '{"value":"abc","salt":"c2FsdA=="}',
          credentialData: '{"algorithm":"md5","hashIterations":1}',
        },
      ],
    }),
    user('locale', {
      attributes: { locale: ['de'], team: ['blue'] },
      credentials: [pbkdf2Credential('pw', 'pbkdf2-sha256', 'sha256', 1000, 32)],
    }),
  ],
};

describe('keycloak input variants', () => {
  let users: Record<string, any>;
  let stderr: string;
  let org: any;
  beforeAll(async () => {
    const dir = tempDir();
    const result = await convertToBody([`--realm=${writeExport(dir, 'variants-realm.json', VARIANTS)}`]);
    users = Object.fromEntries(result.users.map((u) => [u.user.userName, u]));
    stderr = result.stderr;
    org = result.org;
  });

  it('pbkdf2 sha1/256/512 (any iterations/key size), string/object credentialData, legacy layout, bcrypt', async () => {
    const cases: [string, string][] = [
      ['sha1', 'pw-sha1'],
      ['sha256short', 'pw-256'],
      ['sha512', 'pw-512'],
      ['objects', 'pw-obj'],
      ['legacy', 'pw-legacy'],
      ['bcrypt', 'pw-bcrypt'],
    ];
    for (const [name, password] of cases) {
      const hash = users[name].user.hashedPassword.value;
      expect(await verifyPassword(hash, password), name).toBe(true);
      expect(await verifyPassword(hash, 'wrong'), name).toBe(false);
    }
    expect(users.sha1.user.hashedPassword.value).toMatch(/^\$pbkdf2\$20000\$/);
    expect(stderr).toMatch(/hash algorithms seen: .*pbkdf2 \(2\).*bcrypt \(1\)/);
  });

  it('a user without email gets the documented placeholder, unverified, and a warning', () => {
    expect(users.noemail.user.email).toEqual({ email: 'id-noemail@no-email.invalid', isEmailVerified: false });
    expect(stderr).toContain('no email');
    expect(stderr).toContain('noemail');
  });

  it('a disabled user is imported inactive; UPDATE_PASSWORD requires a password change', () => {
    expect(users.disabled.state).toBe('USER_STATE_INACTIVE');
    expect(users.sha1.state).toBeUndefined();
    expect(users.mustchange.user.passwordChangeRequired).toBe(true);
    expect(users.sha1.user.passwordChangeRequired).toBeUndefined();
  });

  it('OTP secrets become base32 TOTP codes: text bytes are the key unless secretEncoding is BASE32', () => {
    expect(users.otptext.user.otpCode).toBe('MFRGGZDFMZTWQ2LK');
    expect(users.otpbase32.user.otpCode).toBe('JBSWY3DPEHPK3PXP');
    expect(users.legacytotp.user.otpCode).toBe('MFRGGZDFMZTWQ2LK');
    expect(users.hotp.user.otpCode).toBeUndefined();
    expect(stderr).toContain('OTP not imported');
  });

  it('users without usable credentials are reported and skipped, naming the reason', () => {
    expect(users.nocreds).toBeUndefined();
    expect(users.federated).toBeUndefined();
    expect(users.md5).toBeUndefined();
    expect(stderr).toContain('no password credential: nocreds');
    expect(stderr).toContain('no password credential (federated user): federated');
    expect(stderr).toContain('unsupported hash algorithm "md5"');
    expect(stderr).toContain('Skipped 3 user(s)');
  });

  it('locale becomes the preferred language; other attributes metadata; the org is named after the realm', () => {
    expect(users.locale.user.profile.preferredLanguage).toBe('de');
    const meta = org.userMetadata.filter((m: any) => m.id === 'id-locale');
    expect(meta).toEqual([{ id: 'id-locale', key: 'team', value: Buffer.from('blue').toString('base64') }]);
    expect(org.org.name).toBe('Variant Realm');
  });

  it('--include-without-password creates those users without a password', async () => {
    const dir = tempDir();
    const { users: list } = await convertToBody([
      `--realm=${writeExport(dir, 'r.json', VARIANTS)}`,
      '--include-without-password',
    ]);
    const byName = Object.fromEntries(list.map((u) => [u.user.userName, u]));
    expect(byName.nocreds.user.hashedPassword).toBeUndefined();
    expect(byName.federated).toBeDefined();
    expect(byName.md5.user.hashedPassword).toBeUndefined();
  });
});

describe('keycloak export layouts and command line', () => {
  it('a directory: realm file plus <realm>-users-N.json files; --timeout and --multiline', async () => {
    const dir = tempDir();
    writeExport(dir, 'shop-realm.json', { realm: 'shop', displayName: 'Shop' });
    writeExport(dir, 'shop-users-0.json', {
      realm: 'shop',
      users: [user('a', { credentials: [pbkdf2Credential('pa', 'pbkdf2-sha256', 'sha256', 1000, 32)] })],
    });
    writeExport(dir, 'shop-users-1.json', {
      realm: 'shop',
      users: [user('b', { credentials: [pbkdf2Credential('pb', 'pbkdf2-sha256', 'sha256', 1000, 32)] })],
    });
    const { body, users, out } = await convertToBody([`--realm=${dir}`, '--timeout=10m0s', '--multiline']);
    expect(users.map((u) => u.user.userName)).toEqual(['a', 'b']);
    expect(body.timeout).toBe('10m0s');
    expect(body.dataOrgs.orgs[0].org.name).toBe('Shop');
    const text = readFileSync(out, 'utf8');
    expect(text).toBe(`${JSON.stringify(body, null, 2)}\n`);
  });

  it('a multi-realm array export with --realm-name, and stdin with -', async () => {
    const realms = [
      {
        realm: 'one',
        users: [user('u1', { credentials: [pbkdf2Credential('p1', 'pbkdf2-sha256', 'sha256', 1000, 32)] })],
      },
      {
        realm: 'two',
        users: [user('u2', { credentials: [pbkdf2Credential('p2', 'pbkdf2-sha256', 'sha256', 1000, 32)] })],
      },
    ];
    const { users, body } = await convertToBody(['--realm=-', '--realm-name=two'], { stdin: JSON.stringify(realms) });
    expect(users.map((u) => u.user.userName)).toEqual(['u2']);
    expect(body.timeout).toBe('5m0s');
    const dir = tempDir();
    const file = writeExport(dir, 'all.json', realms);
    const res = await portcullis([
      'migrate',
      'keycloak',
      '--org=o',
      `--realm=${file}`,
      `--output=${join(dir, 'out.json')}`,
    ]);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('--realm-name');
    expect(existsSync(join(dir, 'out.json'))).toBe(false);
  });

  it('an empty realm converts to an empty body with a warning', async () => {
    const dir = tempDir();
    const { users, stderr } = await convertToBody([
      `--realm=${writeExport(dir, 'empty.json', { realm: 'empty', users: [] })}`,
    ]);
    expect(users).toEqual([]);
    expect(stderr).toContain('no users');
  });

  it('invalid JSON fails with the file, line and column, and writes no output', async () => {
    const dir = tempDir();
    const file = writeExport(
      dir,
      'broken.json',
      '{\n  "realm": "x",\n  "users": [\n    {"id": "a", "username": "a"},\n    {"id": "b", "username": nul}\n  ]\n}',
    );
    const out = join(dir, 'out.json');
    const res = await portcullis(['migrate', 'keycloak', '--org=o', `--realm=${file}`, `--output=${out}`]);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain(`${file}:5:32: invalid JSON`);
    expect(existsSync(out)).toBe(false);
    const truncated = writeExport(dir, 'truncated.json', '{"realm": "x", "users": [{"id": "a"');
    const res2 = await portcullis(['migrate', 'keycloak', '--org=o', `--realm=${truncated}`, `--output=${out}`]);
    expect(res2.code).toBe(1);
    expect(res2.stderr).toMatch(/truncated\.json:1:\d+: invalid JSON: unexpected end of input/);
  });

  it('an unreadable file, missing options and --help', async () => {
    const missing = await portcullis(['migrate', 'keycloak', '--org=o', '--realm=/nonexistent/realm.json']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('cannot read /nonexistent/realm.json');
    const noOrg = await portcullis(['migrate', 'keycloak', `--realm=${join(FIXTURES, 'kc11-users-0.json')}`]);
    expect(noOrg.code).toBe(2);
    expect(noOrg.stderr).toContain('--org is required');
    const badTimeout = await portcullis(['migrate', 'keycloak', '--org=o', '--realm=x.json', '--timeout=soon']);
    expect(badTimeout.code).toBe(2);
    const help = await portcullis(['migrate', 'keycloak', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--realm=<path>');
  });

  it('writes ./importBody.json by default', async () => {
    const dir = tempDir();
    const res = await portcullis(['migrate', 'keycloak', '--org=o', `--realm=${join(FIXTURES, 'kc11-users-0.json')}`], {
      cwd: dir,
    });
    expect(res.code).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, 'importBody.json'), 'utf8')).dataOrgs.orgs[0].humanUsers).toHaveLength(2);
  });
});
