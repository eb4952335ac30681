import os from 'node:os';
import path from 'node:path';

/**
 * Every setting Portcullis reads, in one table. The README's settings table is checked against this
 * list by a test, so a new setting is documented here once (name, default, meaning).
 */
export interface Setting {
  env: string;
  default: string;
  meaning: string;
}

export const SETTINGS: Setting[] = [
  { env: 'PORT', default: '8080', meaning: 'TCP port for everything: Connect, gRPC, gRPC-web, OIDC, login, v1.' },
  { env: 'PORTCULLIS_HOST', default: '0.0.0.0', meaning: 'Address to listen on (tests use 127.0.0.1).' },
  {
    env: 'PORTCULLIS_EXTERNAL_URL',
    default: 'http://localhost:$PORT',
    meaning: 'Public base URL; the OIDC issuer and the instance domain come from it.',
  },
  {
    env: 'DATABASE_URL',
    default: '(unset)',
    meaning: 'postgres://… selects PostgreSQL; unset uses embedded PGlite in PORTCULLIS_DATA_DIR.',
  },
  {
    env: 'PORTCULLIS_DATA_DIR',
    default: './.portcullis',
    meaning: 'Folder for PGlite data, the admin PAT and the generated master key; `memory://` keeps the database in memory.',
  },
  {
    env: 'PORTCULLIS_DB_CONNECT_TIMEOUT',
    default: '30',
    meaning: 'Seconds to keep retrying an unreachable database at start-up before exiting non-zero.',
  },
  { env: 'PORTCULLIS_DB_POOL_SIZE', default: '10', meaning: 'PostgreSQL connections per worker process.' },
  {
    env: 'PORTCULLIS_WORKERS',
    default: '(number of cores)',
    meaning: 'Worker processes sharing the port (PostgreSQL only; PGlite always runs one).',
  },
  {
    env: 'PORTCULLIS_ADMIN_PASSWORD',
    default: '(generated, printed once)',
    meaning: 'Password of the first human administrator `admin`, used on first start only.',
  },
  {
    env: 'PORTCULLIS_ADMIN_PAT_FILE',
    default: '<data dir>/admin.pat',
    meaning: 'Where the first start writes the IAM_OWNER machine user’s personal access token (mode 0600).',
  },
  {
    env: 'PORTCULLIS_ORG_NAME',
    default: 'Portcullis',
    meaning: 'Name of the first organization created on first start.',
  },
  {
    env: 'PORTCULLIS_MASTER_KEY',
    default: '(generated into <data dir>/master.key)',
    meaning: 'Key (32 bytes, base64 or hex) that encrypts signing keys at rest; set the same value on every replica.',
  },
  {
    env: 'PORTCULLIS_TLS_CERT',
    default: '(unset)',
    meaning: 'PEM certificate file; with PORTCULLIS_TLS_KEY the port serves HTTPS (HTTP/2 and HTTP/1.1 by ALPN).',
  },
  { env: 'PORTCULLIS_TLS_KEY', default: '(unset)', meaning: 'PEM private key file for PORTCULLIS_TLS_CERT.' },
  {
    env: 'PORTCULLIS_CORS_ORIGINS',
    default: '(none)',
    meaning: 'Comma-separated origins allowed to call the API from browsers (Connect, gRPC-web).',
  },
  {
    env: 'PORTCULLIS_LOG_LEVEL',
    default: 'info',
    meaning: 'Log level: fatal, error, warn, info, debug, trace or silent.',
  },
  {
    env: 'PORTCULLIS_SHUTDOWN_TIMEOUT',
    default: '25',
    meaning: 'Seconds SIGTERM waits for in-flight requests before closing connections.',
  },
  {
    env: 'PORTCULLIS_KEY_ROTATION_INTERVAL',
    default: '720h',
    meaning: 'How often a new signing key is created and activated automatically (Go duration: 30m, 12h, 720h).',
  },
  {
    env: 'PORTCULLIS_ASSERTION_MAX_LIFETIME',
    default: '1h',
    meaning: 'Longest lifetime (exp ahead of now, Go duration) of a JWT a client signs: private_key_jwt assertions and JWT profile grants.',
  },
  {
    env: 'PORTCULLIS_SMTP_URL',
    default: '(unset)',
    meaning: 'smtp(s)://user:pass@host:port for the notification outbox; unset logs the messages instead.',
  },
  {
    env: 'PORTCULLIS_SMTP_FROM',
    default: 'Portcullis <no-reply@localhost>',
    meaning: 'Sender address of notification mails.',
  },
  {
    env: 'PORTCULLIS_BODY_LIMIT',
    default: '2gb',
    meaning: 'Largest accepted body of `POST /admin/v1/import` (streamed to a temporary file, not held in memory); `0` = no limit. Every other HTTP route accepts at most 1 MB, RPCs at most 4 MB.',
  },
];

export interface Config {
  port: number;
  host: string;
  externalUrl: string;
  databaseUrl: string | undefined;
  dataDir: string;
  inMemory: boolean;
  dbConnectTimeoutMs: number;
  dbPoolSize: number;
  workers: number;
  adminPassword: string | undefined;
  adminPatFile: string | undefined;
  orgName: string;
  masterKey: string | undefined;
  tlsCert: string | undefined;
  tlsKey: string | undefined;
  corsOrigins: string[];
  logLevel: string;
  shutdownTimeoutMs: number;
  keyRotationIntervalMs: number;
  assertionMaxLifetimeS: number;
  smtpUrl: string | undefined;
  smtpFrom: string;
  bodyLimitBytes: number;
}

/** A setting has a value that cannot work; the message names it and says what is expected. */
export class ConfigError extends Error {}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const get = (name: string) => {
    const v = env[name];
    return v === undefined || v.trim() === '' ? undefined : v.trim();
  };
  const port = intSetting('PORT', get('PORT'), 8080, 0, 65535);
  const externalUrl = (get('PORTCULLIS_EXTERNAL_URL') ?? `http://localhost:${port}`).replace(/\/+$/, '');
  checkUrl('PORTCULLIS_EXTERNAL_URL', externalUrl, ['http:', 'https:']);
  const databaseUrl = get('DATABASE_URL');
  if (databaseUrl) checkUrl('DATABASE_URL', databaseUrl, ['postgres:', 'postgresql:']);
  const rawDataDir = get('PORTCULLIS_DATA_DIR') ?? './.portcullis';
  const inMemory = rawDataDir === 'memory://';
  const dataDir = inMemory ? rawDataDir : path.resolve(rawDataDir);
  const logLevel = (get('PORTCULLIS_LOG_LEVEL') ?? 'info').toLowerCase();
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`PORTCULLIS_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}; got "${logLevel}"`);
  }
  const tlsCert = get('PORTCULLIS_TLS_CERT');
  const tlsKey = get('PORTCULLIS_TLS_KEY');
  if (Boolean(tlsCert) !== Boolean(tlsKey)) {
    throw new ConfigError('PORTCULLIS_TLS_CERT and PORTCULLIS_TLS_KEY must be set together');
  }
  const smtpUrl = get('PORTCULLIS_SMTP_URL');
  if (smtpUrl) checkUrl('PORTCULLIS_SMTP_URL', smtpUrl, ['smtp:', 'smtps:']);
  return {
    port,
    host: get('PORTCULLIS_HOST') ?? '0.0.0.0',
    externalUrl,
    databaseUrl,
    dataDir,
    inMemory,
    dbConnectTimeoutMs: intSetting('PORTCULLIS_DB_CONNECT_TIMEOUT', get('PORTCULLIS_DB_CONNECT_TIMEOUT'), 30, 0, 3600) * 1000,
    dbPoolSize: intSetting('PORTCULLIS_DB_POOL_SIZE', get('PORTCULLIS_DB_POOL_SIZE'), 10, 1, 1000),
    workers: databaseUrl ? intSetting('PORTCULLIS_WORKERS', get('PORTCULLIS_WORKERS'), os.availableParallelism(), 1, 256) : 1,
    adminPassword: get('PORTCULLIS_ADMIN_PASSWORD'),
    adminPatFile: get('PORTCULLIS_ADMIN_PAT_FILE') ?? (inMemory ? undefined : path.join(dataDir, 'admin.pat')),
    orgName: get('PORTCULLIS_ORG_NAME') ?? 'Portcullis',
    masterKey: get('PORTCULLIS_MASTER_KEY'),
    tlsCert,
    tlsKey,
    corsOrigins: (get('PORTCULLIS_CORS_ORIGINS') ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    logLevel,
    shutdownTimeoutMs: intSetting('PORTCULLIS_SHUTDOWN_TIMEOUT', get('PORTCULLIS_SHUTDOWN_TIMEOUT'), 25, 0, 3600) * 1000,
    keyRotationIntervalMs: parseDuration(
      'PORTCULLIS_KEY_ROTATION_INTERVAL',
      get('PORTCULLIS_KEY_ROTATION_INTERVAL') ?? '720h',
    ),
    assertionMaxLifetimeS: Math.floor(parseDuration('PORTCULLIS_ASSERTION_MAX_LIFETIME', get('PORTCULLIS_ASSERTION_MAX_LIFETIME') ?? '1h') / 1000),
    smtpUrl,
    smtpFrom: get('PORTCULLIS_SMTP_FROM') ?? 'Portcullis <no-reply@localhost>',
    bodyLimitBytes: parseSize('PORTCULLIS_BODY_LIMIT', get('PORTCULLIS_BODY_LIMIT') ?? '2gb'),
  };
}

function intSetting(name: string, raw: string | undefined, def: number, min: number, max: number): number {
  if (raw === undefined) return def;
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be a whole number; got "${raw}"`);
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(`${name} must be between ${min} and ${max}; got ${n}`);
  return n;
}

function checkUrl(name: string, raw: string, protocols: string[]) {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${name} is not a valid URL: "${redact(raw)}"`);
  }
  if (!protocols.includes(url.protocol)) {
    throw new ConfigError(`${name} must start with ${protocols.map((p) => `${p}//`).join(' or ')}; got "${redact(raw)}"`);
  }
  if (!url.hostname && url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new ConfigError(`${name} has no host: "${redact(raw)}"`);
  }
}

/** Hides the password of a URL so that it can appear in an error message or a log line. */
export function redact(raw: string): string {
  return raw.replace(/\/\/([^:/@]*):([^@]*)@/, '//$1:***@');
}

const DURATION_UNITS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, μs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Parses Go-style durations (`5m0s`, `1h30m`, `720h`, `90s`, `1500ms`, `250us`, `10ns`); a bare number is seconds. */
export function parseDuration(name: string, raw: string): number {
  if (/^\d+$/.test(raw)) return Number(raw) * 1000;
  // longest units first, so that `ms` is not read as `m` followed by `s`
  const re = /(\d+(?:\.\d+)?)(ns|us|µs|μs|ms|s|m|h)/g;
  let total = 0;
  let consumed = 0;
  for (const m of raw.matchAll(re)) {
    if (m.index !== consumed) break;
    total += Number(m[1]) * DURATION_UNITS[m[2]];
    consumed += m[0].length;
  }
  if (consumed !== raw.length || consumed === 0) {
    throw new ConfigError(`${name} must be a duration such as 30s, 5m0s or 720h; got "${raw}"`);
  }
  return total;
}

function parseSize(name: string, raw: string): number {
  const m = /^(\d+)\s*(b|kb|mb|gb)?$/i.exec(raw);
  if (!m) throw new ConfigError(`${name} must be a size such as 512kb or 64mb; got "${raw}"`);
  const mult = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 }[(m[2] ?? 'b').toLowerCase() as 'b'];
  return Number(m[1]) * mult;
}
