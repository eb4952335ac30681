// Builds dist/cli/main.mjs: the whole of src/ (and gen/) bundled by esbuild into one ES module, with
// the npm dependencies left as imports. Running the bundle takes about half the memory of loading
// the TypeScript sources through tsx, and starts faster. `npm run build` calls this directly; the
// `portcullis` command calls ensureBuild() so that it always runs a bundle of the current sources.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// Two folders deep, like the sources it is made of: paths that a source file resolves relative to
// itself (src/db/migrate.ts finds ../../drizzle) lead to the same place from the bundle.
export const BUNDLE = path.join(ROOT, 'dist', 'cli', 'main.mjs');
const INPUTS = ['src', 'gen'].map((d) => path.join(ROOT, d));

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

export async function build() {
  const { build: esbuild } = await import('esbuild');
  fs.mkdirSync(path.dirname(BUNDLE), { recursive: true });
  // Written beside and renamed into place: processes starting at the same moment never read half a file.
  const tmp = `${BUNDLE}.${process.pid}.tmp`;
  await esbuild({
    entryPoints: [path.join(ROOT, 'src', 'cli', 'main.ts')],
    outfile: tmp,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    packages: 'external',
    sourcemap: 'inline',
    logLevel: 'error',
  });
  fs.renameSync(tmp, BUNDLE);
  return BUNDLE;
}

/** The path of a bundle of the current sources, built now if needed; undefined if it cannot be written. */
export async function ensureBuild() {
  if (isFresh()) return BUNDLE;
  try {
    return await build();
  } catch (err) {
    if (['EACCES', 'EROFS', 'EPERM'].includes(err?.code)) return undefined;
    throw err;
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const out = await build();
  process.stdout.write(`built ${path.relative(ROOT, out)}\n`);
}
