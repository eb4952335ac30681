import { describe, expect, it } from 'vitest';
import { ConfigError, expandDefault, loadConfig, parseDurationSetting, SETTINGS } from '../../src/config';
import { runCli } from '../helpers/process';

describe('configuration', () => {
  it('has the documented defaults', () => {
    const c = loadConfig({});
    expect(c.port).toBe(8080);
    expect(c.externalUrl).toBe('http://localhost:8080');
    expect(c.databaseUrl).toBeUndefined();
    expect(c.dataDir.endsWith('.portcullis')).toBe(true);
    expect(c.workers).toBe(1);
    expect(c.dbConnectTimeoutMs).toBe(30_000);
    expect(c.dbQueryTimeoutMs).toBe(10_000);
  });

  it('derives the external URL from PORT and keeps memory://', () => {
    const c = loadConfig({ PORT: '9090', PORTCULLIS_DATA_DIR: 'memory://' });
    expect(c.externalUrl).toBe('http://localhost:9090');
    expect(c.inMemory).toBe(true);
    expect(c.adminPatFile).toBeUndefined();
  });

  it.each([
    [{ DATABASE_URL: 'not a url' }, /DATABASE_URL is not a valid URL/],
    [{ DATABASE_URL: 'mysql://localhost/db' }, /DATABASE_URL must start with postgres:\/\//],
    [
      { DATABASE_URL: 'postgres://u:secret@h1:5432,h2:port/db' },
      /DATABASE_URL is not a valid URL: "postgres:\/\/u:\*\*\*@h1/,
    ],
    [{ PORT: 'eighty' }, /PORT must be a whole number/],
    [{ PORT: '70000' }, /PORT must be between/],
    [{ PORTCULLIS_EXTERNAL_URL: 'ftp://x' }, /PORTCULLIS_EXTERNAL_URL must start with http/],
    [{ PORTCULLIS_LOG_LEVEL: 'loud' }, /PORTCULLIS_LOG_LEVEL must be one of/],
    [{ PORTCULLIS_TLS_CERT: '/tmp/c.pem' }, /must be set together/],
    [{ PORTCULLIS_KEY_ROTATION_INTERVAL: 'soon' }, /must be a duration/],
    // a database that stops answering would hold requests without end
    [{ PORTCULLIS_DB_QUERY_TIMEOUT: '0' }, /PORTCULLIS_DB_QUERY_TIMEOUT must be between 1 and 3600/],
  ])('rejects %o with a message naming the setting', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('takes a libpq multi-host DATABASE_URL as it is (the driver tries the hosts in turn)', () => {
    const url = 'postgres://u:pw@10.0.0.1:5432,10.0.0.2:5433/portcullis?target_session_attrs=read-write';
    expect(loadConfig({ DATABASE_URL: url }).databaseUrl).toBe(url);
  });

  it('turns pipelining off with prepared statements (a transaction-mode pooler) unless told otherwise', () => {
    expect(loadConfig({}).dbPipelining).toBe(true);
    expect(loadConfig({ PORTCULLIS_DB_PREPARED_STATEMENTS: 'false' }).dbPipelining).toBe(false);
    const both = { PORTCULLIS_DB_PREPARED_STATEMENTS: 'false', PORTCULLIS_DB_PIPELINING: 'true' };
    expect(loadConfig(both).dbPipelining).toBe(true);
    expect(() => loadConfig({ PORTCULLIS_DB_PIPELINING: 'off' })).toThrow(
      /PORTCULLIS_DB_PIPELINING must be true or false/,
    );
  });

  it('never prints a database password in an error', () => {
    expect(() => loadConfig({ DATABASE_URL: 'mysql://u:secret@h/db' })).toThrow(/u:\*\*\*@h/);
  });

  it('parses Go-style durations', () => {
    expect(parseDurationSetting('x', '5m0s')).toBe(300_000);
    expect(parseDurationSetting('x', '1h30m')).toBe(5_400_000);
    expect(parseDurationSetting('x', '90')).toBe(90_000);
  });
});

describe('start-up failures', () => {
  it('fails at once with one line on a malformed DATABASE_URL', async () => {
    const p = runCli(['start'], { DATABASE_URL: 'postgres://[bad', PORTCULLIS_DATA_DIR: 'memory://' });
    expect(await p.exited).toBe(2);
    expect(p.stderr().trim()).toMatch(/^portcullis: DATABASE_URL is not a valid URL/);
    expect(p.stderr().trim().split('\n')).toHaveLength(1);
  });

  it('retries a down PostgreSQL for PORTCULLIS_DB_CONNECT_TIMEOUT, then exits non-zero, one clear line', async () => {
    const p = runCli(['start'], {
      DATABASE_URL: 'postgres://postgres@127.0.0.1:1/portcullis',
      PORTCULLIS_DB_CONNECT_TIMEOUT: '2',
      PORTCULLIS_DATA_DIR: 'memory://',
    });
    expect(await p.exited).toBe(1);
    const lines = p.stderr().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^portcullis: cannot reach PostgreSQL at 127\.0\.0\.1:1\/portcullis: .*ECONNREFUSED.*\(gave up after 2s\)$/,
    );
    expect(p.stderr()).not.toMatch(/\bat .*\.ts:\d+/);
  });

  it('prints usage for --help and an error for unknown commands', async () => {
    const help = runCli(['--help']);
    expect(await help.exited).toBe(0);
    expect(help.stdout()).toMatch(/Usage: portcullis <command>/);
    const startHelp = runCli(['start', '--help']);
    expect(await startHelp.exited).toBe(0);
    expect(startHelp.stdout()).toMatch(/Usage: portcullis start/);
    const bad = runCli(['frobnicate']);
    expect(await bad.exited).toBe(2);
    expect(bad.stderr()).toMatch(/unknown command "frobnicate"/);
  });
});

describe('setting declarations', () => {
  const defaults = Object.fromEntries(SETTINGS.flatMap((s) => ('default' in s ? [[s.env, s.default]] : [])));
  const defaulted = SETTINGS.filter((s) => 'default' in s);

  it.each(defaulted.map((s) => [s.env, s]))('%s: the default passes its own parser', (_env, s) => {
    if (!('default' in s)) throw new Error('filtered above');
    expect(() => s.parse(expandDefault(s.default, defaults), s.env)).not.toThrow();
  });

  it.each(defaulted.map((s) => [s.env, s]))('%s: setting the declared default changes nothing', (_env, s) => {
    if (!('default' in s)) throw new Error('filtered above');
    expect(loadConfig({ [s.env]: expandDefault(s.default, defaults) })).toEqual(loadConfig({}));
  });
});
