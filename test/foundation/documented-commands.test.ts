import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/process';
import { startTestServer, type TestServer } from '../helpers/server';

/**
 * Every shell command of the README and of docs/ copy-pastes as written: each ```sh / ```bash block runs in
 * bash against one real server, in a folder that looks like a checkout with the server's PAT in
 * `.portcullis/admin.pat`. The only things the test provides are the two variables the README's quick start
 * defines (`PORTCULLIS_URL`, `PAT`); its defining block (`<!-- sets: … -->`) runs too, and must find that PAT.
 * A block the test cannot run says why in a comment right before it (`<!-- not run: … -->`), or names the
 * tools it needs (`<!-- needs: grpcurl -->`: run when they are installed). Blocks of one page run in order in
 * one shell session's worth of variables, so a later block may use an id an earlier one captured; each page
 * starts from the two variables alone.
 */

interface Block {
  file: string;
  line: number;
  code: string;
  mark?: { kind: 'not run' | 'needs' | 'sets'; value: string };
  /** an HTML comment right before the block that is no marker */
  strayComment?: string;
}

const SHELL = new Set(['sh', 'bash', 'shell']);
const PAGES = ['README.md', ...fs.readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md'))].map((f) =>
  f === 'README.md' ? f : `docs/${f}`,
);

function shellBlocks(file: string): Block[] {
  const lines = fs.readFileSync(path.join(ROOT, file), 'utf8').split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)\s*$/.exec(lines[i]);
    if (!open) continue;
    let end = i + 1;
    while (end < lines.length && !/^```\s*$/.test(lines[end])) end++;
    if (SHELL.has(open[1])) {
      let before = i - 1;
      while (before >= 0 && lines[before].trim() === '') before--;
      const comment = before >= 0 && lines[before].startsWith('<!--') ? lines[before] : undefined;
      const marker = comment && /^<!--\s*(not run|needs|sets):\s*(.*?)\s*-->$/.exec(comment);
      blocks.push({
        file,
        line: i + 1,
        code: lines.slice(i + 1, end).join('\n'),
        mark: marker ? { kind: marker[1] as 'not run' | 'needs' | 'sets', value: marker[2] } : undefined,
        strayComment: comment && !marker ? comment : undefined,
      });
    }
    i = end;
  }
  return blocks;
}

const BLOCKS = PAGES.flatMap(shellBlocks);
const where = (b: Block) => `${b.file}:${b.line}`;

/** Names a block assigns (`NAME=…`, `export NAME=…`), carried on to the page's later blocks. */
function assigned(code: string): string[] {
  return [...code.matchAll(/^\s*(?:export\s+)?([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1]);
}

/** The environment of a reader's shell: nothing of this test's own server settings or of npm's. */
function readerEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !/^(npm_|PORTCULLIS_|DATABASE_|PORT$|NODE_OPTIONS$|VITEST)/i.test(k)) env[k] = v;
  }
  return env;
}

interface Run {
  code: number | null;
  output: string;
}

/** bash -c, without blocking the event loop: the server under test lives in this process. */
function bash(script: string, cwd: string, env: Record<string, string>): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

const installed = (tool: string) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;

/** What an error answer of the API (Connect, v1), of an OAuth endpoint or of an item of an import looks like. */
const ERROR_BODY = /"code"\s*:\s*(?:"[a-z_]+"|\d+)|"error"\s*:\s*"|Message=Errors\./;

describe('the shell commands of the README and docs/', () => {
  it('are each run by this test, or say why not right before them', () => {
    expect(BLOCKS.length).toBeGreaterThan(10);
    for (const b of BLOCKS) {
      expect(b.strayComment, `${where(b)}: a comment before a command block that is no marker`).toBeUndefined();
      if (b.mark?.kind === 'not run') expect(b.mark.value.length, `${where(b)}: say why`).toBeGreaterThan(10);
      if (b.mark?.kind === 'needs') expect(b.mark.value).toMatch(/^[\w-]+(?: [\w-]+)*$/);
      // a command that names the default address would reach some other server than the one under test
      if (!b.mark) expect(b.code, `${where(b)} uses $PORTCULLIS_URL`).not.toMatch(/localhost:8080/);
    }
    const sets = BLOCKS.filter((b) => b.mark?.kind === 'sets');
    expect(sets.map(where)).toHaveLength(1);
    expect(sets[0].file).toBe('README.md');
    expect(sets[0].mark!.value.split(' ').sort()).toEqual(['PAT', 'PORTCULLIS_URL']);
  });

  describe('run against a server', () => {
    let server: TestServer;
    let sandbox: string;
    beforeAll(async () => {
      server = await startTestServer();
      // a checkout's folder as a reader has it: the repository's files, and the first start's PAT file
      sandbox = fs.mkdtempSync(path.join(os.tmpdir(), 'pc-docs-'));
      for (const entry of fs.readdirSync(ROOT)) {
        if (entry === '.git' || entry === '.portcullis') continue;
        fs.symlinkSync(path.join(ROOT, entry), path.join(sandbox, entry));
      }
      fs.mkdirSync(path.join(sandbox, '.portcullis'));
      fs.writeFileSync(path.join(sandbox, '.portcullis', 'admin.pat'), `${server.pat}\n`, { mode: 0o600 });
    }, 60_000);
    afterAll(async () => {
      await server?.stop();
      if (sandbox) fs.rmSync(sandbox, { recursive: true, force: true });
    });

    it("defines PORTCULLIS_URL and PAT as the README's quick start says", async () => {
      const [sets] = BLOCKS.filter((b) => b.mark?.kind === 'sets');
      const run = await bash(`set -eo pipefail\n${sets.code}\nprintf '%s\\n' "$PORTCULLIS_URL" "$PAT"`, sandbox, {
        ...readerEnv(),
      });
      expect(run.code, run.output).toBe(0);
      expect(run.output.trim().split('\n')).toEqual(['http://localhost:8080', server.pat]);
    });

    for (const page of PAGES) {
      const runnable = BLOCKS.filter((b) => b.file === page && (!b.mark || b.mark.kind === 'needs'));
      if (runnable.length === 0) continue;
      it(`runs the commands of ${page}`, async () => {
        const names = [...new Set(runnable.flatMap((b) => assigned(b.code)))];
        const state = path.join(sandbox, `.state-${page.replace(/\W/g, '_')}`);
        const env = { ...readerEnv(), PORTCULLIS_URL: server.url, PAT: server.pat, STATE: state };
        for (const b of runnable) {
          const missing = b.mark?.kind === 'needs' ? b.mark.value.split(' ').filter((t) => !installed(t)) : [];
          if (missing.length > 0) {
            console.warn(`${where(b)}: not run, ${missing.join(', ')} not installed`);
            continue;
          }
          const script = [
            'set -eo pipefail',
            `if [ -f "$STATE" ]; then source "$STATE"; fi`,
            b.code,
            names.length ? `{ declare -p ${names.join(' ')} 2>/dev/null || true; } > "$STATE.next"` : '',
            names.length ? `mv "$STATE.next" "$STATE"` : '',
          ].join('\n');
          const run = await bash(script, sandbox, env);
          expect(run.code, `${where(b)} exited ${run.code}:\n${run.output}`).toBe(0);
          expect(run.output, `${where(b)} answered an error`).not.toMatch(ERROR_BODY);
          // the fields a `# → {…}` line promises are in the answer
          for (const promised of b.code.matchAll(/^# → (.*)$/gm)) {
            for (const [, key] of promised[1].matchAll(/"(\w+)":/g)) {
              expect(run.output, `${where(b)} promises "${key}"`).toContain(`"${key}"`);
            }
          }
        }
      }, 180_000);
    }
  });
});
