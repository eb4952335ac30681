import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';

// Two folders below the package root, as the server bundle is (bin/build.mjs): from either, the
// sources are at the same place.
const ENTRY = fileURLToPath(new URL('../../src/console/app/main.tsx', import.meta.url));

export interface ConsoleBundle {
  js: string;
  css: string;
  /** content hash: the asset URLs carry it, so browsers may cache them for good */
  version: string;
}

let bundle: Promise<ConsoleBundle> | undefined;

/**
 * The console's browser code (src/console/app, React), bundled by esbuild once per process and kept
 * in memory; `warmConsoleBundle` starts it with the server so that the first visitor does not wait.
 */
export function consoleBundle(): Promise<ConsoleBundle> {
  bundle ??= import('esbuild')
    .then(({ build }) =>
      build({
        entryPoints: [ENTRY],
        bundle: true,
        write: false,
        outdir: 'out',
        format: 'esm',
        platform: 'browser',
        target: 'es2022',
        minify: true,
        jsx: 'automatic',
        jsxImportSource: 'react',
        define: { 'process.env.NODE_ENV': '"production"' },
        legalComments: 'none',
        logLevel: 'silent',
      }),
    )
    .then((r) => {
      const js = r.outputFiles.find((f) => f.path.endsWith('.js'))?.text ?? '';
      const css = r.outputFiles.find((f) => f.path.endsWith('.css'))?.text ?? '';
      const version = createHash('sha256').update(js).update(css).digest('base64url').slice(0, 16);
      return { js, css, version };
    })
    .catch((err) => {
      bundle = undefined;
      throw err;
    });
  return bundle;
}

export function warmConsoleBundle(onError: (err: unknown) => void): void {
  consoleBundle().catch(onError);
}
