import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { onPostgres } from '../helpers/database';
import { ROOT } from '../helpers/process';

const run = promisify(execFile);

/**
 * A fresh clone installs clean, as a newcomer's does: `npm install` changes no tracked file (the lock file
 * is committed as npm writes it), and its only EBADENGINE warnings are those the quick start explains —
 * packages that want a newer Node.js than the one running npm and accept the Node.js the project brings
 * (the `node` package), which is the one they run on. A whole install takes minutes: it runs once in CI,
 * in the pass on PGlite, and only in a git checkout (it clones the committed state).
 */
describe.skipIf(onPostgres || !fs.existsSync(path.join(ROOT, '.git')))('a fresh clone', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pc-clone-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it(
    'installs with git status clean, warning only as the README says',
    async () => {
      await run('git', ['clone', '--quiet', ROOT, dir]);
      // npm as a shell runs it: on the machine's Node.js, not the one this test runs on (node_modules/.bin).
      const PATH = (process.env.PATH ?? '')
        .split(path.delimiter)
        .filter((p) => !p.includes(`node_modules${path.sep}.bin`))
        .join(path.delimiter);
      const { stderr } = await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline'], {
        cwd: dir,
        env: { ...outsideNpm(process.env), PATH, npm_config_loglevel: 'warn' },
        timeout: 7 * 60_000,
        maxBuffer: 64 * 1024 * 1024,
      });
      const { stdout: status } = await run('git', ['status', '--porcelain'], { cwd: dir });
      expect(status).toBe('');

      const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
      const bundled: string = pkg.dependencies.node;
      const lines = stderr.split('\n').filter((l) => l.includes('EBADENGINE'));
      const warnings = engineWarnings(lines);
      // every EBADENGINE line belongs to a warning read here (five lines each)
      expect(lines).toHaveLength(warnings.length * 5);
      for (const w of warnings) {
        expect(w.package, 'Portcullis itself').not.toMatch(/^portcullis@/);
        expect(satisfies(bundled, w.required), `${w.package} wants Node.js ${w.required}`).toBe(true);
      }
      const readme = fs.readFileSync(path.join(dir, 'README.md'), 'utf8');
      if (warnings.length > 0) expect(readme).toMatch(/EBADENGINE/);
    },
    8 * 60_000,
  );
});

/** The environment without what an npm running this test passes on to its scripts (npm_config_*, …). */
function outsideNpm(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !/^npm_/i.test(name)));
}

/** The package and the Node.js range of each `npm warn EBADENGINE Unsupported engine { … }` block. */
function engineWarnings(lines: string[]): { package: string; required: string }[] {
  const found: { package: string; required: string }[] = [];
  let current: string | undefined;
  for (const line of lines) {
    const pkg = /package: '([^']+)'/.exec(line);
    if (pkg) current = pkg[1];
    const required = /required: \{ node: '([^']+)'/.exec(line);
    if (required && current) found.push({ package: current, required: required[1] });
  }
  return found;
}

/**
 * Whether `version` is in a range made of `||` alternatives of space-separated comparators (>=, >, <=, <,
 * ^, an exact version), as the engines of packages write them; anything else counts as not satisfied.
 */
function satisfies(version: string, range: string): boolean {
  const v = parse(version);
  if (!v) return false;
  return range.split('||').some((alternative) =>
    alternative
      .trim()
      .split(/\s+/)
      .every((comparator) => {
        const m = /^(>=|<=|>|<|\^|=)?v?(\d+(?:\.\d+){0,2})$/.exec(comparator);
        const bound = m && parse(m[2]);
        if (!m || !bound) return false;
        const c = compare(v, bound);
        switch (m[1]) {
          case '>=':
            return c >= 0;
          case '>':
            return c > 0;
          case '<=':
            return c <= 0;
          case '<':
            return c < 0;
          case '^':
            return c >= 0 && v[0] === bound[0];
          default:
            return c === 0;
        }
      }),
  );
}

function parse(version: string): number[] | undefined {
  const m = /^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(version.trim());
  return m ? [Number(m[1]), Number(m[2] ?? 0), Number(m[3] ?? 0)] : undefined;
}

function compare(a: number[], b: number[]): number {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return 0;
}
