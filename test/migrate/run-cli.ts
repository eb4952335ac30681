import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect } from 'vitest';
import { OrganizationService } from '../../gen/portcullis/org/v2/org_service_pb';
import type { TestServer } from '../helpers/server';

export const FIXTURES = resolve(import.meta.dirname, '../../../shared/fixtures/keycloak');
const BIN = resolve(import.meta.dirname, '../../bin/portcullis.mjs');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `portcullis <args>` as a user would, in a child process. */
export function portcullis(args: string[], opts: { stdin?: string; cwd?: string } = {}): Promise<CliResult> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: opts.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', fail);
    child.on('close', (code) => done({ code, stdout, stderr }));
    child.stdin.end(opts.stdin ?? '');
  });
}

export const tempDir = () => mkdtempSync(join(tmpdir(), 'portcullis-migrate-'));

/** Writes a Keycloak-like export into a fresh temporary directory and returns its path. */
export function writeExport(dir: string, name: string, content: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  return path;
}

/** Converts with the given arguments and returns the parsed body and the CLI result. */
export async function convertToBody(args: string[], opts: { stdin?: string } = {}) {
  const out = join(tempDir(), 'importBody.json');
  const result = await portcullis(['migrate', 'keycloak', '--org=org-1', `--output=${out}`, ...args], opts);
  if (result.code !== 0) throw new Error(`migrate failed (${result.code}): ${result.stderr}`);
  const body = JSON.parse(readFileSync(out, 'utf8'));
  const org = body.dataOrgs.orgs[0];
  return { body, org, users: org.humanUsers as any[], stderr: result.stderr, out };
}

/** Every real export under shared/fixtures/keycloak, with the passwords its README lists. */
export const FIXTURE_REALMS: { org: string; name: string; files: string[]; passwords: Record<string, string> }[] = [
  { org: 'kc22', name: 'KC22 my-realm', files: ['kc22-realm-minimal.json'], passwords: {} },
  {
    org: 'kc23',
    name: 'KC23 jhipster',
    files: ['kc23-realm-users-inside.json'],
    passwords: { admin: 'admin', user: 'user' },
  },
  { org: 'kc11', name: 'KC11 jhipster', files: ['kc11-users-0.json'], passwords: { admin: 'admin', user: 'user' } },
  { org: 'kc3', name: 'KC3 jhipster', files: ['kc3-legacy-users-0.json'], passwords: { admin: 'admin', user: 'user' } },
  { org: 'kc24', name: 'KC24 Test', files: ['kc24-realm.json', 'kc24-users-0.json'], passwords: { test: '1234' } },
  {
    org: 'kc26',
    name: 'KC26 middle-earth',
    files: ['kc26-argon2-users-0.json'],
    passwords: { bilbo: 'bilbo', frodo: 'frodo', gimli: 'gimli' },
  },
];

/**
 * Migrates one realm into its own organization of a running server, as an operator would:
 * `portcullis migrate keycloak --url` with an IAM_OWNER's token. Returns the CLI's result.
 */
function migrateInto(server: { url: string; pat: string }, realm: (typeof FIXTURE_REALMS)[number]): Promise<CliResult> {
  const tokenFile = join(tempDir(), 'admin.pat');
  writeFileSync(tokenFile, `${server.pat}\n`);
  const files = realm.files.map((f) => `--realm=${join(FIXTURES, f)}`);
  // kc11, kc23 and kc3 are versions of one realm: the same user ids, so each copy gets its own prefix.
  return portcullis([
    'migrate',
    'keycloak',
    `--org=${realm.org}`,
    `--org-name=${realm.name}`,
    `--id-prefix=${realm.org}-`,
    ...files,
    `--url=${server.url}`,
    `--token-file=${tokenFile}`,
  ]);
}

/**
 * Migrates each realm into its own organization (every user must be accepted) and answers each
 * organization's primary domain, the `<username>@<domain>` of its users' login names.
 */
export async function migrateRealms(server: TestServer, realms: typeof FIXTURE_REALMS): Promise<Map<string, string>> {
  const domains = new Map<string, string>();
  for (const realm of realms) {
    const res = await migrateInto(server, realm);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr, realm.org).toMatch(/ 0 refused/);
    const org = await server.client(OrganizationService).getOrganization({ organizationId: realm.org });
    domains.set(realm.org, org.organization!.primaryDomain);
  }
  return domains;
}
