import { type ChildProcess, execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'ldapts';
import { freePort, ROOT, waitFor } from './process';

const run = promisify(execFile);

const SLAPD = '/usr/sbin/slapd';
const SLAPADD = '/usr/sbin/slapadd';
const SCHEMAS = ['core', 'cosine', 'inetorgperson', 'nis'];
const SEED = path.join(ROOT, 'test/fixtures/ldap/people.ldif');

export const BASE_DN = 'dc=example,dc=org';
export const SERVICE_DN = 'cn=portcullis,ou=services,dc=example,dc=org';
export const SERVICE_PASSWORD = 'service-secret';

export interface Slapd {
  /** ldap://127.0.0.1:<port> (StartTLS is offered there when started with tls) */
  url: string;
  /** ldaps://127.0.0.1:<port>, only when started with tls */
  ldapsUrl?: string;
  /** the PEM of the self-signed certificate the server presents (its own CA), only with tls */
  caPem?: string;
  baseDn: string;
  bindDn: string;
  bindPassword: string;
  stop(): Promise<void>;
}

// Every slapd this process started, killed when the process exits however the tests end.
const running = new Map<ChildProcess, string>();
process.once('exit', () => {
  for (const [child, dir] of running) {
    child.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

/**
 * A private OpenLDAP server on a random loopback port, seeded with test/fixtures/ldap/people.ldif.
 *
 * The server allows a simple bind with a DN and an empty password (`allow bind_anon_dn`), which
 * real directories often do: that turns it into an anonymous bind that succeeds, so the tests can
 * prove the client refuses empty passwords itself instead of relying on the server.
 */
export async function startSlapd(opts: { tls?: boolean } = {}): Promise<Slapd> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'portcullis-slapd-'));
  try {
    fs.mkdirSync(path.join(dir, 'data'));
    const caPem = opts.tls ? await makeCertificate(dir) : undefined;
    const conf = path.join(dir, 'slapd.conf');
    fs.writeFileSync(conf, slapdConf(dir, !!opts.tls));
    await run(SLAPADD, ['-q', '-f', conf, '-l', SEED]);
    return await listen(dir, conf, caPem);
  } catch (err) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}

async function listen(dir: string, conf: string, caPem: string | undefined): Promise<Slapd> {
  const port = await freePort();
  const tlsPort = caPem ? await freePort() : undefined;
  const url = `ldap://127.0.0.1:${port}`;
  const ldapsUrl = tlsPort ? `ldaps://127.0.0.1:${tlsPort}` : undefined;
  // -d keeps slapd in the foreground, so it stays our child and dies with it.
  const child = spawn(SLAPD, ['-d', '0', '-f', conf, '-h', [url, ldapsUrl].filter(Boolean).join(' ')], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  running.set(child, dir);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (running.delete(child)) {
      child.kill('SIGKILL');
      await exited;
      fs.rmSync(dir, { recursive: true, force: true });
    }
  };
  try {
    await waitFor(() => answers(url, child), 15_000, `slapd on ${url}`);
  } catch (err) {
    await stop();
    throw new Error(`${(err as Error).message}\n${stderr}`);
  }
  return { url, ldapsUrl, caPem, baseDn: BASE_DN, bindDn: SERVICE_DN, bindPassword: SERVICE_PASSWORD, stop };
}

async function answers(url: string, child: ChildProcess): Promise<boolean> {
  if (child.exitCode !== null) throw new Error(`slapd exited with ${child.exitCode}`);
  const client = new Client({ url, timeout: 1000, connectTimeout: 1000 });
  try {
    await client.bind(SERVICE_DN, SERVICE_PASSWORD);
    return true;
  } finally {
    await client.unbind().catch(() => {});
  }
}

function slapdConf(dir: string, tls: boolean): string {
  const lines = [
    ...SCHEMAS.map((s) => `include /etc/ldap/schema/${s}.schema`),
    'modulepath /usr/lib/ldap',
    'moduleload back_mdb',
    `pidfile ${dir}/slapd.pid`,
    `argsfile ${dir}/slapd.args`,
    'allow bind_anon_dn',
    ...(tls ? [`TLSCertificateFile ${dir}/cert.pem`, `TLSCertificateKeyFile ${dir}/key.pem`] : []),
    'database mdb',
    'maxsize 10485760',
    `suffix "${BASE_DN}"`,
    `directory ${dir}/data`,
    'index objectClass,uid,mail eq',
    // Passwords are only for binding; only the service account (and each user itself) may read entries.
    'access to attrs=userPassword by anonymous auth by * none',
    `access to * by dn.exact="${SERVICE_DN}" read by self read by * none`,
  ];
  return `${lines.join('\n')}\n`;
}

/** A self-signed certificate for 127.0.0.1 that is also the CA the tests trust. */
async function makeCertificate(dir: string): Promise<string> {
  await run('openssl', [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-days',
    '1',
    '-subj',
    '/CN=127.0.0.1',
    '-addext',
    'subjectAltName=IP:127.0.0.1,DNS:localhost',
    '-keyout',
    path.join(dir, 'key.pem'),
    '-out',
    path.join(dir, 'cert.pem'),
  ]);
  return fs.readFileSync(path.join(dir, 'cert.pem'), 'utf8');
}
