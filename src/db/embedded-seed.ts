import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The embedded database's first start, done at install time: `npm install` (bin/build.mjs) writes a
 * data folder that initdb made and every migration reached into dist/pglite-seed/, and a first start
 * copies it into place (src/db/pglite-open.ts). initdb alone takes ~3 s and ~500 MB of WebAssembly
 * memory; a copy of the folder takes a fraction of a second and none.
 *
 * Two folders deep like the sources: from src/db/ and from the bundle's dist/cli/ alike, ../../dist.
 */
export const EMBEDDED_SEED_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../dist/pglite-seed');

/**
 * What the seed was made from (PGlite's version and the migration journal), written by bin/build.mjs once
 * the folder is complete; a seed without it is not used, and one from other versions is made anew.
 */
export const SEED_STAMP = '.portcullis-migrations';

/**
 * Puts the seed in place as a new data folder: copied beside it, then renamed, so an interrupted copy
 * never leaves a folder that looks initialised. False when there is no complete seed (a checkout whose
 * build could not write dist/): the caller runs initdb instead. A seed older than the migrations is
 * still a good start; the server's migrate applies the rest.
 */
export function copyEmbeddedSeed(pgdata: string): boolean {
  if (!fs.existsSync(path.join(EMBEDDED_SEED_DIR, SEED_STAMP))) return false;
  const staging = `${pgdata}.seed-${process.pid}`;
  fs.cpSync(EMBEDDED_SEED_DIR, staging, { recursive: true });
  fs.rmSync(path.join(staging, SEED_STAMP));
  fs.rmSync(pgdata, { recursive: true, force: true });
  fs.renameSync(staging, pgdata);
  return true;
}

/**
 * Makes the seed: a new data folder beside `dir`, migrated, closed cleanly, then renamed into place, so a
 * starting server never copies half a folder. Runs in its own process (bin/build.mjs), whose
 * WebAssembly memory goes when it exits.
 */
export async function writeEmbeddedSeed(dir = EMBEDDED_SEED_DIR): Promise<void> {
  const [{ openDatabase }, { migrate }] = await Promise.all([import('./client'), import('./migrate')]);
  const staging = `${dir}.${process.pid}`;
  fs.rmSync(staging, { recursive: true, force: true });
  // openDatabase makes <dataDir>/pgdata: the data folder itself is that subfolder.
  const database = await openDatabase({ dataDir: staging, queryTimeoutMs: 0 });
  try {
    await migrate(database);
  } finally {
    await database.close();
  }
  const pgdata = path.join(staging, 'pgdata');
  fs.rmSync(dir, { recursive: true, force: true });
  fs.renameSync(pgdata, dir);
  fs.rmSync(staging, { recursive: true, force: true });
}
