#!/usr/bin/env -S node --liftoff-only --max-semi-space-size=16
// The `portcullis` command. The flags (here and in `npm start`) keep the embedded database's process small:
// V8 compiles PGlite's WebAssembly once with its baseline compiler instead of optimising it again in
// background threads, whose ~80 MB of compiler memory the process keeps (PGlite's queries run about as
// fast either way: their time goes to PostgreSQL's own work and the JavaScript around it), and the young
// generation stays at 16 MB per semi-space where V8 would grow it to 64 MB for the startup's allocations.
// It runs the bundle of the sources in dist/ (bin/build.mjs), built here on first use and again whenever a
// source is newer than it — a fraction of a second. Where the package folder is read-only and holds no
// current bundle, the TypeScript sources run through tsx instead.
import { pathToFileURL } from 'node:url';
import { ensureBuild } from './build.mjs';

const bundle = await ensureBuild();
let main;
if (bundle) {
  ({ main } = await import(pathToFileURL(bundle).href));
} else {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../src/cli/main.ts'));
}
process.exitCode = await main(process.argv.slice(2));
