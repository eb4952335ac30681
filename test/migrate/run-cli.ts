import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

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
