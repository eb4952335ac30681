// Builds dist/cli/main.mjs: the whole of src/ (and gen/) bundled by esbuild into one ES module, with
// the npm dependencies left as imports. Running the bundle takes about half the memory of loading
// the TypeScript sources through tsx, and starts faster. `npm run build` calls this directly; the
// `portcullis` command calls ensureBuild() so that it always runs a bundle of the current sources. The
// web console's script and stylesheet are built with it into dist/console/.
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { bundleConsole, bundleWebauthn } from './console-build.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// Two folders deep, like the sources it is made of: paths that a source file resolves relative to
// itself (src/db/migrate.ts finds ../../drizzle) lead to the same place from the bundle.
export const BUNDLE = path.join(ROOT, 'dist', 'cli', 'main.mjs');
/** The web console's script and stylesheet, built with the server bundle (src/console/bundle.ts serves them). */
const CONSOLE_DIR = path.join(ROOT, 'dist', 'console');
/** The login's WebAuthn script (src/login/webauthn-script.ts serves it). */
const LOGIN_DIR = path.join(ROOT, 'dist', 'login');
const INPUTS = ['src', 'gen'].map((d) => path.join(ROOT, d));
/** The embedded database's data folder as a first start finds it (src/db/embedded-seed.ts). */
const SEED_DIR = path.join(ROOT, 'dist', 'pglite-seed');
const JOURNAL = path.join(ROOT, 'drizzle', 'meta', '_journal.json');

function newestInput() {
  let newest = 0;
  const visit = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, entry.name);
      if (entry.isDirectory()) visit(p);
      else newest = Math.max(newest, fs.statSync(p).mtimeMs);
    }
  };
  for (const dir of INPUTS) if (fs.existsSync(dir)) visit(dir);
  return newest;
}

export function isFresh() {
  try {
    return fs.statSync(BUNDLE).mtimeMs >= newestInput();
  } catch {
    return false;
  }
}

const SEED_STAMP = path.join(SEED_DIR, '.portcullis-migrations');
/** What a current seed was made from: the installed PGlite (its data folder format) and the migrations. */
function seedSource() {
  const pglite = path.join(ROOT, 'node_modules', '@electric-sql', 'pglite', 'package.json');
  return `pglite ${JSON.parse(fs.readFileSync(pglite, 'utf8')).version}\n${fs.readFileSync(JOURNAL, 'utf8')}`;
}

function seedIsCurrent() {
  try {
    return fs.readFileSync(SEED_STAMP, 'utf8') === seedSource();
  } catch {
    return false;
  }
}

/**
 * Makes dist/pglite-seed/ with the bundle just built, in a child process: initdb's WebAssembly memory
 * (~500 MB) goes with it. Best effort: without a seed a first start runs initdb itself.
 */
function writeSeed() {
  const entry = pathToFileURL(path.join(path.dirname(BUNDLE), 'embedded-seed.mjs')).href;
  const script = `const { writeEmbeddedSeed } = await import(${JSON.stringify(entry)}); await writeEmbeddedSeed();`;
  const args = ['--input-type=module', '-e', script];
  const run = spawnSync(process.execPath, args, { stdio: 'inherit', timeout: 180_000 });
  if (run.status === 0) fs.writeFileSync(SEED_STAMP, seedSource());
  else process.stderr.write('portcullis: could not prepare the embedded database; a first start runs initdb\n');
}

export async function build() {
  const { build: esbuild } = await import('esbuild');
  const dir = path.dirname(BUNDLE);
  const staging = path.join(ROOT, 'dist', `.build-${process.pid}`);
  fs.rmSync(staging, { recursive: true, force: true });
  // Split at the dynamic imports: `portcullis migrate` must not load the server's dependencies
  // (imports of npm packages cannot be deferred inside one file, so one file would load them all).
  const result = await esbuild({
    entryPoints: {
      main: path.join(ROOT, 'src', 'cli', 'main.ts'),
      'embedded-seed': path.join(ROOT, 'src', 'db', 'embedded-seed.ts'),
    },
    outdir: staging,
    entryNames: '[name]',
    outExtension: { '.js': '.mjs' },
    chunkNames: 'chunk-[hash]',
    bundle: true,
    splitting: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    packages: 'external',
    // Node keeps the text of every module it loads for as long as the process runs. An inline source
    // map would triple that text, and one character beyond Latin-1 (a "…" in a template) makes V8 store
    // a whole file at two bytes per character; so the map is a file of its own, for debuggers, and
    // the code is ASCII.
    sourcemap: 'linked',
    charset: 'ascii',
    logLevel: 'error',
    metafile: true,
  });
  fs.mkdirSync(dir, { recursive: true });
  // Chunks are named by their content, so a chunk of the previous build that a starting process is
  // about to load is never overwritten with something else; the entry is renamed into place last.
  const written = Object.keys(result.metafile.outputs).map((f) => path.basename(f));
  for (const f of written) if (f !== 'main.mjs') fs.renameSync(path.join(staging, f), path.join(dir, f));
  // The console's assets before the entry: a process that sees the new entry finds them current.
  const consoleAssets = await bundleConsole(path.join(ROOT, 'src', 'console', 'app', 'main.tsx'));
  fs.mkdirSync(CONSOLE_DIR, { recursive: true });
  for (const [name, text] of [['console.js', consoleAssets.js], ['console.css', consoleAssets.css]]) {
    fs.writeFileSync(path.join(staging, name), text);
    fs.renameSync(path.join(staging, name), path.join(CONSOLE_DIR, name));
  }
  const webauthn = await bundleWebauthn(path.join(ROOT, 'src', 'login', 'client', 'webauthn.ts'));
  fs.mkdirSync(LOGIN_DIR, { recursive: true });
  fs.writeFileSync(path.join(staging, 'webauthn.js'), webauthn);
  fs.renameSync(path.join(staging, 'webauthn.js'), path.join(LOGIN_DIR, 'webauthn.js'));
  fs.renameSync(path.join(staging, 'main.mjs'), BUNDLE);
  fs.rmSync(staging, { recursive: true, force: true });
  if (!seedIsCurrent()) writeSeed();
  // Chunks of earlier builds: removed once they are old enough that no process can still be starting.
  const keep = new Set(written);
  for (const f of fs.readdirSync(dir)) {
    const p = path.join(dir, f);
    const stale = f.startsWith('chunk-') && !keep.has(f) && Date.now() - fs.statSync(p).mtimeMs > 600_000;
    if (stale) fs.rmSync(p, { force: true });
  }
  return BUNDLE;
}

/** The path of a bundle of the current sources, built now if needed; undefined if it cannot be written. */
export async function ensureBuild() {
  // The seed belongs to the build (npm install, npm run build), never to a start of a current bundle: a
  // start without one copies nothing and runs initdb itself.
  if (isFresh()) return BUNDLE;
  try {
    return await build();
  } catch (err) {
    if (['EACCES', 'EROFS', 'EPERM'].includes(err?.code)) return undefined;
    throw err;
  } finally {
    // esbuild's service process (~100 MB) would otherwise live as long as the server it built
    const { stop } = await import('esbuild');
    await stop();
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const out = await build();
  process.stdout.write(`built ${path.relative(ROOT, out)}\n`);
}
