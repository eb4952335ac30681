import os from 'node:os';
import path from 'node:path';
import { databaseFolderName } from './db/identity';
import { parseDuration } from './domain/validate/duration';

/** A setting has a value that cannot work; the message names it and says what is expected. */
export class ConfigError extends Error {}

/** Turns a set (trimmed, non-empty) value into what the code uses, or throws a ConfigError naming `env`. */
type Parser<T> = (raw: string, env: string) => T;

interface SettingBase<T> {
  env: string;
  meaning: string;
  parse: Parser<T>;
}

/**
 * A setting with a literal default: when unset, `default` is parsed exactly like a set value, so the
 * documented default and the one the code uses cannot drift apart. `$NAME` in it stands for another
 * setting's resolved value (only `$PORT` today).
 */
export interface DefaultedSetting<T> extends SettingBase<T> {
  default: string;
}

/**
 * A setting without a literal default: unset means absent, or a value `loadConfig` derives from other
 * settings; `whenUnset` says which, as docs/settings.md shows it.
 */
export interface OptionalSetting<T> extends SettingBase<T> {
  whenUnset: string;
}

export type Setting = DefaultedSetting<unknown> | OptionalSetting<unknown>;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

const text: Parser<string> = (raw) => raw;

function integer(min: number, max: number): Parser<number> {
  return (raw, env) => {
    if (!/^\d+$/.test(raw)) throw new ConfigError(`${env} must be a whole number; got "${raw}"`);
    const n = Number(raw);
    if (n < min || n > max) throw new ConfigError(`${env} must be between ${min} and ${max}; got ${n}`);
    return n;
  };
}

function flag(raw: string, env: string): boolean {
  if (raw === 'true' || raw === 'false') return raw === 'true';
  throw new ConfigError(`${env} must be true or false; got "${raw}"`);
}

/** Whole seconds in the environment, milliseconds in Config (what timers take). */
function secondsAsMs(min: number, max: number): Parser<number> {
  const seconds = integer(min, max);
  return (raw, env) => seconds(raw, env) * 1000;
}

function url(protocols: string[]): Parser<string> {
  return (raw, env) => {
    checkUrl(env, raw, protocols);
    return raw;
  };
}

/**
 * Every setting Portcullis reads, declared once: name, default, parser and meaning. `loadConfig` reads
 * through these declarations and the settings table of docs/settings.md is checked against them by a test.
 */
const S = {
  port: {
    env: 'PORT',
    default: '8080',
    parse: integer(0, 65535),
    meaning: 'TCP port for everything: Connect, gRPC, gRPC-web, OIDC, login, v1.',
  },
  host: {
    env: 'PORTCULLIS_HOST',
    default: '0.0.0.0',
    parse: text,
    meaning: 'Address to listen on (tests use 127.0.0.1).',
  },
  externalUrl: {
    env: 'PORTCULLIS_EXTERNAL_URL',
    default: 'http://localhost:$PORT',
    // a trailing slash would double up when paths are appended to the issuer
    parse: (raw, env) => url(['http:', 'https:'])(raw.replace(/\/+$/, ''), env),
    meaning: 'Public base URL; the OIDC issuer and the instance domain come from it.',
  },
  databaseUrl: {
    env: 'DATABASE_URL',
    whenUnset: '(unset)',
    parse: postgresUrl,
    meaning:
      'postgres://… selects PostgreSQL; unset uses embedded PGlite in PORTCULLIS_DATA_DIR. Several hosts ' +
      '(postgres://h1:5432,h2:5432/db) connect to whichever is the primary.',
  },
  dataDir: {
    env: 'PORTCULLIS_DATA_DIR',
    default: './.portcullis',
    // memory:// is a PGlite location, not a folder, so it is not resolved against the working directory
    parse: (raw) => (raw === 'memory://' ? raw : path.resolve(raw)),
    meaning:
      'Folder for PGlite data, the admin PAT and the generated master key (on PostgreSQL in a folder of each ' +
      'database inside it, see [The data folder](postgresql.md#the-data-folder)); `memory://` keeps the ' +
      'database in memory.',
  },
  dbConnectTimeoutMs: {
    env: 'PORTCULLIS_DB_CONNECT_TIMEOUT',
    default: '30',
    parse: secondsAsMs(0, 3600),
    meaning: 'Seconds to keep retrying an unreachable database at start-up before exiting non-zero.',
  },
  dbQueryTimeoutMs: {
    env: 'PORTCULLIS_DB_QUERY_TIMEOUT',
    default: '10',
    // no "off": a database that stops answering would hold every request until the client gives up
    parse: secondsAsMs(1, 3600),
    meaning:
      'Seconds a request may wait on PostgreSQL for each step: connecting, one statement (`statement_timeout`, ' +
      'not sent behind a pooler with DATABASE_LISTEN_URL) and, one second longer, an answer that never comes; ' +
      'then it fails as unavailable (503).',
  },
  dbPoolSize: {
    env: 'PORTCULLIS_DB_POOL_SIZE',
    default: '10',
    parse: integer(1, 1000),
    meaning: 'PostgreSQL connections per worker process.',
  },
  databaseListenUrl: {
    env: 'DATABASE_LISTEN_URL',
    whenUnset: '(DATABASE_URL)',
    parse: postgresUrl,
    meaning:
      'A direct connection to PostgreSQL, past a transaction-mode pooler in DATABASE_URL: LISTEN/NOTIFY and the ' +
      'session advisory locks of the start (migrations, bootstrap) need one session throughout.',
  },
  databaseReadUrl: {
    env: 'DATABASE_READ_URL',
    whenUnset: '(unset)',
    parse: readReplicaUrl,
    meaning:
      'Hot standbys of the primary that serve the API reads which tolerate a little lag ' +
      '(see [Read replicas](postgresql.md#read-replicas)); ' +
      'unset, everything reads DATABASE_URL. Several hosts (postgres://r1,r2/db) are tried in order by each ' +
      'connection, not balanced: it takes the first that answers (with `target_session_attrs=standby` or ' +
      '`prefer-standby`, the first standby; `read-only` is refused, as the driver would refuse every hot standby). ' +
      'A pool of PORTCULLIS_DB_POOL_SIZE connections.',
  },
  dbReadMaxLagMs: {
    env: 'PORTCULLIS_DB_READ_MAX_LAG',
    default: '5',
    parse: secondsAsMs(1, 3600),
    meaning: 'Seconds a read replica may be behind the primary; further behind, every read goes to the primary.',
  },
  dbPreparedStatements: {
    env: 'PORTCULLIS_DB_PREPARED_STATEMENTS',
    default: 'true',
    parse: flag,
    meaning: '`false` behind a transaction-mode pooler that cannot keep prepared statements (PgBouncer before 1.21).',
  },
  dbPipelining: {
    env: 'PORTCULLIS_DB_PIPELINING',
    whenUnset: '(PORTCULLIS_DB_PREPARED_STATEMENTS)',
    parse: flag,
    meaning:
      'Send a query on a connection before the previous one answered. `false` behind a transaction-mode pooler that ' +
      'hands the connection back after the first answer (PgBouncer 1.18 stalls, the late answers going nowhere).',
  },
  workers: {
    env: 'PORTCULLIS_WORKERS',
    whenUnset: '(number of cores)',
    parse: integer(1, 256),
    meaning: 'Worker processes sharing the port (PostgreSQL only; PGlite always runs one).',
  },
  adminPassword: {
    env: 'PORTCULLIS_ADMIN_PASSWORD',
    whenUnset: '(generated, printed once)',
    parse: text,
    meaning: 'Password of the first human administrator `admin`, used on first start only.',
  },
  adminPatFile: {
    env: 'PORTCULLIS_ADMIN_PAT_FILE',
    whenUnset: '<database folder>/admin.pat',
    parse: text,
    meaning: 'Where the first start writes the IAM_OWNER machine user’s personal access token (mode 0600).',
  },
  orgName: {
    env: 'PORTCULLIS_ORG_NAME',
    default: 'Portcullis',
    parse: text,
    meaning: 'Name of the first organization created on first start.',
  },
  masterKey: {
    env: 'PORTCULLIS_MASTER_KEY',
    whenUnset: '(generated into <database folder>/master.key)',
    parse: text,
    meaning: 'Key (32 bytes, base64 or hex) that encrypts signing keys at rest; set the same value on every replica.',
  },
  tlsCert: {
    env: 'PORTCULLIS_TLS_CERT',
    whenUnset: '(unset)',
    parse: text,
    meaning: 'PEM certificate file; with PORTCULLIS_TLS_KEY the port serves HTTPS (HTTP/2 and HTTP/1.1 by ALPN).',
  },
  tlsKey: {
    env: 'PORTCULLIS_TLS_KEY',
    whenUnset: '(unset)',
    parse: text,
    meaning: 'PEM private key file for PORTCULLIS_TLS_CERT.',
  },
  corsOrigins: {
    env: 'PORTCULLIS_CORS_ORIGINS',
    whenUnset: '(none)',
    parse: (raw) =>
      raw
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    meaning: 'Comma-separated origins allowed to call the API from browsers (Connect, gRPC-web).',
  },
  logLevel: {
    env: 'PORTCULLIS_LOG_LEVEL',
    default: 'info',
    parse: (raw, env) => {
      const level = raw.toLowerCase();
      if (!LOG_LEVELS.includes(level))
        throw new ConfigError(`${env} must be one of ${LOG_LEVELS.join(', ')}; got "${level}"`);
      return level;
    },
    meaning: 'Log level: fatal, error, warn, info, debug, trace or silent.',
  },
  shutdownTimeoutMs: {
    env: 'PORTCULLIS_SHUTDOWN_TIMEOUT',
    default: '25',
    parse: secondsAsMs(0, 3600),
    meaning: 'Seconds SIGTERM waits for in-flight requests before closing connections.',
  },
  keyRotationIntervalMs: {
    env: 'PORTCULLIS_KEY_ROTATION_INTERVAL',
    default: '720h',
    parse: (raw, env) => parseDurationSetting(env, raw),
    meaning: 'How often a new signing key is created and activated automatically (Go duration: 30m, 12h, 720h).',
  },
  assertionMaxLifetimeS: {
    env: 'PORTCULLIS_ASSERTION_MAX_LIFETIME',
    default: '1h',
    // JWT exp and iat are whole seconds
    parse: (raw, env) => Math.floor(parseDurationSetting(env, raw) / 1000),
    meaning:
      'Longest lifetime (exp ahead of now, Go duration) of a JWT a client signs: ' +
      'private_key_jwt assertions and JWT profile grants.',
  },
  smtpUrl: {
    env: 'PORTCULLIS_SMTP_URL',
    whenUnset: '(unset)',
    parse: url(['smtp:', 'smtps:']),
    meaning: 'smtp(s)://user:pass@host:port for the notification outbox; unset logs the messages instead.',
  },
  smtpFrom: {
    env: 'PORTCULLIS_SMTP_FROM',
    default: 'Portcullis <no-reply@localhost>',
    parse: text,
    meaning: 'Sender address of notification mails.',
  },
  smsHttpUrl: {
    env: 'PORTCULLIS_SMS_HTTP_URL',
    whenUnset: '(unset)',
    parse: url(['http:', 'https:']),
    meaning:
      'SMS gateway for one-time codes: each SMS is a `POST` of `{"to","text","id"}` as JSON to this URL ' +
      '(any 2xx accepts it; otherwise the outbox retries); unset logs the messages instead.',
  },
  smsHttpToken: {
    env: 'PORTCULLIS_SMS_HTTP_TOKEN',
    whenUnset: '(unset)',
    parse: text,
    meaning: 'Sent as `Authorization: Bearer <token>` with every request to `PORTCULLIS_SMS_HTTP_URL`.',
  },
  bodyLimitBytes: {
    env: 'PORTCULLIS_BODY_LIMIT',
    default: '2gb',
    parse: (raw, env) => parseSize(env, raw),
    meaning:
      'Largest accepted body of `POST /admin/v1/import` (streamed to a temporary file, not held in memory); ' +
      '`0` = no limit. Every other HTTP route accepts at most 1 MB, RPCs at most 4 MB.',
  },
} satisfies Record<string, DefaultedSetting<unknown> | OptionalSetting<unknown>>;

/** The declarations in the order of docs/settings.md. */
export const SETTINGS: Setting[] = Object.values(S);

/** What the default column of docs/settings.md shows for a setting. */
function documentedDefault(s: Setting): string {
  return 'default' in s ? s.default : s.whenUnset;
}

/** The rows of the settings table in docs/settings.md, rendered from the declarations (a test compares them). */
export function settingsTableRows(): string[] {
  return SETTINGS.map((s) => `| \`${s.env}\` | \`${documentedDefault(s)}\` | ${s.meaning} |`);
}

/** Replaces `$NAME` in a default with the value `vars` gives for NAME. */
export function expandDefault(value: string, vars: Record<string, string>): string {
  return value.replace(/\$([A-Z_]+)/g, (whole, name: string) => vars[name] ?? whole);
}

export interface Config {
  port: number;
  host: string;
  externalUrl: string;
  databaseUrl: string | undefined;
  dataDir: string;
  inMemory: boolean;
  /**
   * The folder of this database's admin PAT and master key: the data folder with PGlite, a folder of the
   * database's own inside it with PostgreSQL (`<host>-<port>-<database>`), or where an earlier version
   * kept them (see crypto/keys/database-folder.ts). Undefined with `memory://`.
   */
  databaseFolder: string | undefined;
  dbConnectTimeoutMs: number;
  dbQueryTimeoutMs: number;
  dbPoolSize: number;
  databaseListenUrl: string | undefined;
  databaseReadUrl: string | undefined;
  dbReadMaxLagMs: number;
  dbPreparedStatements: boolean;
  dbPipelining: boolean;
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
  smsHttpUrl: string | undefined;
  smsHttpToken: string | undefined;
  bodyLimitBytes: number;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const get = (name: string) => {
    const v = env[name];
    return v === undefined || v.trim() === '' ? undefined : v.trim();
  };
  const read = <T>(s: DefaultedSetting<T>, vars: Record<string, string> = {}): T =>
    s.parse(get(s.env) ?? expandDefault(s.default, vars), s.env);
  const readOptional = <T>(s: OptionalSetting<T>): T | undefined => {
    const raw = get(s.env);
    return raw === undefined ? undefined : s.parse(raw, s.env);
  };
  // Read in the order the checks ran before the declarations existed, so that of several bad values
  // the same one is reported first.
  const port = read(S.port);
  const externalUrl = read(S.externalUrl, { PORT: String(port) });
  const databaseUrl = readOptional(S.databaseUrl);
  const dataDir = read(S.dataDir);
  const inMemory = dataDir === 'memory://';
  // The database's own folder is named after the server itself, past a pooler in DATABASE_URL.
  const identityUrl = readOptional(S.databaseListenUrl) ?? databaseUrl;
  const databaseFolder = inMemory
    ? undefined
    : identityUrl
      ? path.join(dataDir, databaseFolderName(identityUrl))
      : dataDir;
  const logLevel = read(S.logLevel);
  const tlsCert = readOptional(S.tlsCert);
  const tlsKey = readOptional(S.tlsKey);
  if (Boolean(tlsCert) !== Boolean(tlsKey)) {
    throw new ConfigError('PORTCULLIS_TLS_CERT and PORTCULLIS_TLS_KEY must be set together');
  }
  const smtpUrl = readOptional(S.smtpUrl);
  const databaseReadUrl = readOptional(S.databaseReadUrl);
  if (databaseReadUrl && !databaseUrl) {
    throw new ConfigError('DATABASE_READ_URL needs DATABASE_URL: embedded PGlite has no replicas');
  }
  return {
    port,
    host: read(S.host),
    externalUrl,
    databaseUrl,
    dataDir,
    inMemory,
    databaseFolder,
    dbConnectTimeoutMs: read(S.dbConnectTimeoutMs),
    dbQueryTimeoutMs: read(S.dbQueryTimeoutMs),
    dbPoolSize: read(S.dbPoolSize),
    databaseListenUrl: readOptional(S.databaseListenUrl),
    databaseReadUrl,
    dbReadMaxLagMs: read(S.dbReadMaxLagMs),
    dbPreparedStatements: read(S.dbPreparedStatements),
    // the setting that says "a transaction-mode pooler is in between" also rules out pipelining unless told
    dbPipelining: readOptional(S.dbPipelining) ?? read(S.dbPreparedStatements),
    // PGlite allows one process, so the setting is neither used nor checked without PostgreSQL
    workers: databaseUrl ? (readOptional(S.workers) ?? os.availableParallelism()) : 1,
    adminPassword: readOptional(S.adminPassword),
    // with memory:// there is no folder to write the token to
    adminPatFile: readOptional(S.adminPatFile) ?? (databaseFolder ? path.join(databaseFolder, 'admin.pat') : undefined),
    orgName: read(S.orgName),
    masterKey: readOptional(S.masterKey),
    tlsCert,
    tlsKey,
    corsOrigins: readOptional(S.corsOrigins) ?? [],
    logLevel,
    shutdownTimeoutMs: read(S.shutdownTimeoutMs),
    keyRotationIntervalMs: read(S.keyRotationIntervalMs),
    assertionMaxLifetimeS: read(S.assertionMaxLifetimeS),
    smtpUrl,
    smtpFrom: read(S.smtpFrom),
    smsHttpUrl: readOptional(S.smsHttpUrl),
    smsHttpToken: readOptional(S.smsHttpToken),
    bodyLimitBytes: read(S.bodyLimitBytes),
  };
}

function checkUrl(name: string, raw: string, protocols: string[], shown = raw) {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${name} is not a valid URL: "${redact(shown)}"`);
  }
  if (!protocols.includes(url.protocol)) {
    throw new ConfigError(
      `${name} must start with ${protocols.map((p) => `${p}//`).join(' or ')}; got "${redact(shown)}"`,
    );
  }
  if (!url.hostname && url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new ConfigError(`${name} has no host: "${redact(shown)}"`);
  }
}

/**
 * A PostgreSQL URL in libpq's form, which may name several hosts (`postgres://h1:5432,h2:5432/db`): WHATWG
 * URL parsing refuses a host list, so each host is checked in a URL of its own.
 */
function postgresUrl(raw: string, env: string): string {
  const m = /^(postgres(?:ql)?:\/\/)([^@/?#]*@)?([^/?#]*)(.*)$/.exec(raw);
  if (!m) {
    checkUrl(env, raw, ['postgres:', 'postgresql:']);
    return raw;
  }
  for (const host of m[3].split(','))
    checkUrl(env, `${m[1]}${m[2] ?? ''}${host}${m[4]}`, ['postgres:', 'postgresql:'], raw);
  return raw;
}

/**
 * The replicas' URL. The driver decides `target_session_attrs=read-only` by `default_transaction_read_only`,
 * which a hot standby reports as off, so it would refuse every standby (libpq accepts them).
 */
function readReplicaUrl(raw: string, env: string): string {
  if (/[?&]target_session_attrs=read-only(?:&|#|$)/.test(raw)) {
    throw new ConfigError(
      `${env}: target_session_attrs=read-only refuses hot standbys in the PostgreSQL driver; ` +
        'use standby or prefer-standby',
    );
  }
  return postgresUrl(raw, env);
}

/** Hides the password of a URL so that it can appear in an error message or a log line. */
export function redact(raw: string): string {
  return raw.replace(/\/\/([^:/@]*):([^@]*)@/, '//$1:***@');
}

/** A setting's duration in milliseconds, in the one grammar of domain/validate/duration.ts. */
export function parseDurationSetting(name: string, raw: string): number {
  const ms = parseDuration(raw);
  if (ms === undefined) throw new ConfigError(`${name} must be a duration such as 30s, 5m0s or 720h; got "${raw}"`);
  return ms;
}

function parseSize(name: string, raw: string): number {
  const m = /^(\d+)\s*(b|kb|mb|gb)?$/i.exec(raw);
  if (!m) throw new ConfigError(`${name} must be a size such as 512kb or 64mb; got "${raw}"`);
  const mult = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 }[(m[2] ?? 'b').toLowerCase() as 'b'];
  return Number(m[1]) * mult;
}
