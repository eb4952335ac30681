import { checkArgon2 } from '../../../crypto/passwords/argon2';
import { decodeBase64, encodePhcBase64 } from '../../../crypto/passwords/base64';
import { checkBcrypt } from '../../../crypto/passwords/bcrypt-format';
import { formatPbkdf2, parsePbkdf2 } from '../../../crypto/passwords/pbkdf2-format';
import { base32Decode, base32Encode } from './base32';

/** A Keycloak credential as exported: the layout of Keycloak 10+ or the legacy one (≤ 9). */
export type KeycloakCredential = Record<string, unknown>;

export type PasswordResult =
  | { kind: 'hash'; algorithm: string; value: string }
  | { kind: 'plain'; algorithm: 'plain-text'; value: string }
  | { kind: 'unsupported'; algorithm: string; reason: string };

export type OtpResult = { kind: 'totp'; secret: string } | { kind: 'ignored'; reason: string };

/** secretData / credentialData are JSON text inside JSON; some tools write them as objects. */
function embedded(value: unknown): Record<string, unknown> {
  if (value && typeof value === 'object') return value as Record<string, unknown>;
  if (typeof value !== 'string' || value === '') return {};
  try {
    const parsed = JSON.parse(value);
    return parsed && typeof parsed === 'object' ? parsed : {};
  } catch {
    return {};
  }
}

/** Keycloak writes additionalParameters as one-element string arrays; take the first. */
function param(params: unknown, name: string): string | undefined {
  const v = (params as Record<string, unknown> | undefined)?.[name];
  const first = Array.isArray(v) ? v[0] : v;
  return first === undefined || first === null ? undefined : String(first);
}

interface PasswordFields {
  value?: string;
  salt?: string;
  iterations?: number;
  algorithm?: string;
  params?: unknown;
  /** a plain-text password as written in hand-made realm files (`value` without salt) */
  plain?: string;
}

function passwordFields(c: KeycloakCredential): PasswordFields {
  if ('secretData' in c || 'credentialData' in c) {
    const secret = embedded(c.secretData);
    const data = embedded(c.credentialData);
    return {
      value: secret.value as string | undefined,
      salt: secret.salt as string | undefined,
      iterations: data.hashIterations as number | undefined,
      algorithm: data.algorithm as string | undefined,
      params: data.additionalParameters,
    };
  }
  if ('hashedSaltedValue' in c) {
    return {
      value: c.hashedSaltedValue as string | undefined,
      salt: c.salt as string | undefined,
      iterations: c.hashIterations as number | undefined,
      algorithm: c.algorithm as string | undefined,
    };
  }
  if (typeof c.value === 'string') return { plain: c.value };
  return {};
}

const PBKDF2: Record<string, 'sha1' | 'sha256' | 'sha512'> = {
  pbkdf2: 'sha1',
  'pbkdf2-sha1': 'sha1',
  'pbkdf2-sha256': 'sha256',
  'pbkdf2-sha512': 'sha512',
};

const b64 = (text: string | undefined) =>
  typeof text === 'string' && /^[A-Za-z0-9+/]*={0,2}$/.test(text) ? decodeBase64(text) : undefined;

/**
 * The server's import check (checkImportedHash) for the three forms written here, without its verifiers:
 * this code runs in the console's browser code too, where those cannot.
 */
function checkConverted(value: string): string | undefined {
  if (/^\$argon2(id|i|d)\$/.test(value)) return checkArgon2(value);
  if (/^\$pbkdf2(-sha1|-sha256|-sha512)?\$/.test(value)) {
    const parsed = parsePbkdf2(value);
    return typeof parsed === 'string' ? parsed : undefined;
  }
  if (/^\$2[abxy]\$/.test(value)) return checkBcrypt(value);
  return 'unsupported password hash format';
}

/** Converts a password credential into a modular-crypt hash the server verifies. */
export function mapPassword(c: KeycloakCredential): PasswordResult {
  const f = passwordFields(c);
  if (f.plain !== undefined) return { kind: 'plain', algorithm: 'plain-text', value: f.plain };
  const algorithm = (f.algorithm ?? '').toLowerCase();
  if (!algorithm) return { kind: 'unsupported', algorithm: '(none)', reason: 'password credential without algorithm' };
  const result = ((): PasswordResult => {
    const digest = PBKDF2[algorithm];
    if (digest) {
      const key = b64(f.value);
      const salt = b64(f.salt);
      if (!key || !salt || !f.iterations)
        return { kind: 'unsupported', algorithm, reason: `${algorithm} credential without hash, salt or iterations` };
      return { kind: 'hash', algorithm, value: formatPbkdf2(digest, Number(f.iterations), salt, key) };
    }
    if (algorithm === 'argon2') return mapArgon2(f);
    if (algorithm === 'bcrypt' && typeof f.value === 'string') return { kind: 'hash', algorithm, value: f.value };
    return { kind: 'unsupported', algorithm, reason: `unsupported hash algorithm "${algorithm}"` };
  })();
  if (result.kind === 'hash') {
    const problem = checkConverted(result.value);
    if (problem) return { kind: 'unsupported', algorithm: result.algorithm, reason: problem };
  }
  return result;
}

/**
 * Keycloak's argon2 provider: raw hash and salt, parameters in additionalParameters (Keycloak's
 * defaults when absent).
 */
function mapArgon2(f: PasswordFields): PasswordResult {
  const type = param(f.params, 'type') ?? 'id';
  const version = param(f.params, 'version') ?? '1.3';
  const memory = param(f.params, 'memory') ?? '7168';
  const parallelism = param(f.params, 'parallelism') ?? '1';
  const iterations = f.iterations ?? Number(param(f.params, 'iterations') ?? 5);
  const key = b64(f.value);
  const salt = b64(f.salt);
  const algorithm = `argon2${type}`;
  if (!['id', 'i', 'd'].includes(type))
    return { kind: 'unsupported', algorithm, reason: `unknown argon2 type "${type}"` };
  if (version !== '1.3' && version !== '1.0')
    return { kind: 'unsupported', algorithm, reason: `unknown argon2 version "${version}"` };
  if (!key || !salt) return { kind: 'unsupported', algorithm, reason: 'argon2 credential without hash or salt' };
  const v = version === '1.3' ? 19 : 16;
  const cost = `m=${memory},t=${iterations},p=${parallelism}`;
  const value = `$argon2${type}$v=${v}$${cost}$${encodePhcBase64(salt)}$${encodePhcBase64(key)}`;
  return { kind: 'hash', algorithm, value };
}

/**
 * Converts an OTP credential into the base32 TOTP secret the import takes. Keycloak keeps the secret
 * as text whose UTF-8 bytes are the HMAC key, unless secretEncoding says the text is base32.
 */
export function mapOtp(c: KeycloakCredential): OtpResult {
  const legacy = !('secretData' in c || 'credentialData' in c);
  const secret = legacy ? c.value : embedded(c.secretData).value;
  const data = legacy ? c : embedded(c.credentialData);
  const subType = String(data.subType ?? (c.type === 'hotp' ? 'hotp' : 'totp')).toLowerCase();
  if (subType !== 'totp') return { kind: 'ignored', reason: 'HOTP (counter-based) OTP is not supported' };
  if (typeof secret !== 'string' || secret === '') return { kind: 'ignored', reason: 'OTP credential without secret' };
  const algorithm = String(data.algorithm ?? 'HmacSHA1');
  const digits = Number(data.digits ?? 6) || 6;
  const period = Number(data.period ?? 30) || 30;
  if (algorithm !== 'HmacSHA1' || digits !== 6 || period !== 30)
    return {
      kind: 'ignored',
      reason: `OTP with ${algorithm}, ${digits} digits, ${period} s is not supported (only HmacSHA1, 6 digits, 30 s)`,
    };
  let key: Uint8Array;
  if (String(data.secretEncoding ?? '').toUpperCase() === 'BASE32') {
    const decoded = base32Decode(secret);
    if (!decoded) return { kind: 'ignored', reason: 'OTP secret is not valid base32' };
    key = decoded;
  } else key = new TextEncoder().encode(secret);
  return { kind: 'totp', secret: base32Encode(key) };
}
