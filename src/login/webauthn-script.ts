import { fileURLToPath } from 'node:url';
import type { Context } from 'hono';

// Two folders below the package root, as the server bundle is (bin/build.mjs): from either, the
// script's source is at the same place.
const SOURCE = fileURLToPath(new URL('../../src/login/client/webauthn.ts', import.meta.url));

let bundle: Promise<string> | undefined;

/**
 * The login's WebAuthn script (src/login/client/webauthn.ts with @simplewebauthn/browser), bundled by
 * esbuild at the first request and kept in memory.
 */
export function webauthnScript(): Promise<string> {
  bundle ??= import('esbuild')
    .then(({ build }) =>
      build({
        entryPoints: [SOURCE],
        bundle: true,
        write: false,
        format: 'iife',
        platform: 'browser',
        target: 'es2020',
        minify: true,
        logLevel: 'silent',
      }),
    )
    .then((r) => r.outputFiles[0].text)
    .catch((err) => {
      bundle = undefined;
      throw err;
    });
  return bundle;
}

/** GET /ui/login/webauthn.js */
export async function serveWebauthnScript(c: Context): Promise<Response> {
  c.header('Cache-Control', 'public, max-age=3600');
  c.header('X-Content-Type-Options', 'nosniff');
  return c.body(await webauthnScript(), 200, { 'Content-Type': 'text/javascript; charset=utf-8' });
}

/**
 * A login page that runs the WebAuthn script: its CSP (src/login/render.tsx) also allows scripts
 * from this origin, and requests to it (the options of a passkey sign-in). Every other page keeps
 * `default-src 'none'`.
 */
export function withScript(res: Response): Response {
  const csp = res.headers.get('Content-Security-Policy');
  if (csp) res.headers.set('Content-Security-Policy', `${csp}; script-src 'self'; connect-src 'self'`);
  return res;
}
