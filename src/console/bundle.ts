import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { bundleConsole, type ConsoleBundle, consoleVersion } from '../../bin/console-build.mjs';

export type { ConsoleBundle };

// Two folders below the package root, as the server bundle is (bin/build.mjs): from either, the
// sources and dist/ are at the same place.
const ENTRY = fileURLToPath(new URL('../../src/console/app/main.tsx', import.meta.url));
const PREBUILT = fileURLToPath(new URL('../../dist/console/', import.meta.url));
/**
 * The `portcullis` command runs dist/cli, rebuilt with dist/console whenever a source is newer, so the
 * prebuilt assets are current there. Run from the sources (tests, tsx), a prebuilt copy may be stale.
 */
const FROM_BUNDLE = import.meta.url.includes('/dist/cli/');

let bundle: Promise<ConsoleBundle> | undefined;

/**
 * The console's script and stylesheet: the ones `npm run build` (or the first start) wrote next to the
 * server bundle, or bundled in memory once per process when the server runs from its sources.
 * `warmConsoleBundle` starts it with the server so that the first visitor does not wait.
 */
export function consoleBundle(): Promise<ConsoleBundle> {
  bundle ??= (FROM_BUNDLE && fs.existsSync(`${PREBUILT}console.js`) ? readPrebuilt() : bundleConsole(ENTRY)).catch(
    (err) => {
      bundle = undefined;
      throw err;
    },
  );
  return bundle;
}

async function readPrebuilt(): Promise<ConsoleBundle> {
  const [js, css] = await Promise.all(
    ['console.js', 'console.css'].map((f) => fs.promises.readFile(`${PREBUILT}${f}`, 'utf8')),
  );
  return { js, css, version: consoleVersion(js, css) };
}

export function warmConsoleBundle(onError: (err: unknown) => void): void {
  consoleBundle().catch(onError);
}
