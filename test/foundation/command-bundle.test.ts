import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');

/** The `portcullis` command (what `npm start` and `npx portcullis` run) runs a bundle of the current sources. */
describe('the portcullis command', () => {
  it('builds dist/cli/main.mjs from the sources when it is missing or older, and runs it', async () => {
    const { isFresh, BUNDLE } = await import('../../bin/build.mjs');
    const { stdout } = await run(process.execPath, ['bin/portcullis.mjs', '--help'], { cwd: ROOT });
    expect(stdout).toMatch(/start/);
    expect(stdout).toMatch(/migrate/);
    expect(fs.existsSync(BUNDLE)).toBe(true);
    expect(isFresh()).toBe(true);
    // An older bundle is rebuilt on the next start.
    const old = new Date(Date.now() - 3600_000);
    fs.utimesSync(BUNDLE, old, old);
    expect(isFresh()).toBe(false);
    const again = await run(process.execPath, ['bin/portcullis.mjs', 'migrate', 'keycloak', '--help'], { cwd: ROOT });
    expect(again.stdout).toMatch(/--realm/);
    expect(isFresh()).toBe(true);
  }, 60_000);

  it("writes the web console's assets with it: the script a bundled server serves is the current one", async () => {
    const { build } = await import('../../bin/build.mjs');
    const { bundleConsole } = await import('../../bin/console-build.mjs');
    await build();
    const fresh = await bundleConsole(path.join(ROOT, 'src/console/app/main.tsx'));
    expect(fs.readFileSync(path.join(ROOT, 'dist/console/console.js'), 'utf8')).toBe(fresh.js);
    expect(fs.readFileSync(path.join(ROOT, 'dist/console/console.css'), 'utf8')).toBe(fresh.css);
  }, 60_000);
});
