import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Context } from 'hono';
import { bundleWebauthn } from '../../bin/console-build.mjs';
import { sendStaticAsset } from '../http/static-asset';

// Two folders below the package root, as the server bundle is (bin/build.mjs): from either, the
// script's source is at the same place.
const SOURCE = fileURLToPath(new URL('../../src/login/client/webauthn.ts', import.meta.url));
const PREBUILT = fileURLToPath(new URL('../../dist/login/webauthn.js', import.meta.url));
/** Run from dist/cli (the `portcullis` command), the script bin/build.mjs wrote beside it is current. */
const FROM_BUNDLE = import.meta.url.includes('/dist/cli/');

let bundle: Promise<string> | undefined;

/**
 * The login's WebAuthn script (src/login/client/webauthn.ts with @simplewebauthn/browser): the one
 * `npm run build` (run at install) wrote, or bundled by esbuild at the first request and kept in memory
 * when the server runs from its sources.
 */
function webauthnScript(): Promise<string> {
  bundle ??= (
    FROM_BUNDLE && fs.existsSync(PREBUILT) ? fs.promises.readFile(PREBUILT, 'utf8') : bundleWebauthn(SOURCE)
  ).catch((err) => {
    bundle = undefined;
    throw err;
  });
  return bundle;
}

/** GET /ui/login/webauthn.js */
export async function serveWebauthnScript(c: Context): Promise<Response> {
  c.header('Cache-Control', 'public, max-age=3600');
  c.header('X-Content-Type-Options', 'nosniff');
  // one script per process: bundled once, or read once from dist/
  const text = await webauthnScript();
  return sendStaticAsset(c, { key: 'login/webauthn.js', text }, 'text/javascript; charset=utf-8');
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
