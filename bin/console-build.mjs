// The browser code the server sends, by esbuild: the console (src/console/app, React) as one script and one
// stylesheet, and the login's WebAuthn script. One definition for both callers: bin/build.mjs writes the
// results to dist/ next to the server bundle, and a server running from the TypeScript sources (tests,
// tsx) bundles them in memory on first use.
import { createHash } from 'node:crypto';

/** Bundles the entry (src/console/app/main.tsx); resolves to the script, the stylesheet and a content hash. */
export async function bundleConsole(entry) {
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: [entry],
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
  });
  const js = result.outputFiles.find((f) => f.path.endsWith('.js'))?.text ?? '';
  const css = result.outputFiles.find((f) => f.path.endsWith('.css'))?.text ?? '';
  return { js, css, version: consoleVersion(js, css) };
}

/** The asset URLs carry it (?v=), so that browsers may cache them for good. */
export function consoleVersion(js, css) {
  return createHash('sha256').update(js).update(css).digest('base64url').slice(0, 16);
}

/** Bundles the login's WebAuthn script (src/login/client/webauthn.ts with @simplewebauthn/browser). */
export async function bundleWebauthn(entry) {
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'browser',
    target: 'es2020',
    minify: true,
    logLevel: 'silent',
  });
  return result.outputFiles[0].text;
}
