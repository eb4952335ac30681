#!/usr/bin/env node
// The `portcullis` command. It runs the bundle of the sources in dist/ (bin/build.mjs), built here on
// first use and again whenever a source is newer than it — a fraction of a second. Where the package
// folder is read-only and holds no current bundle, the TypeScript sources run through tsx instead.
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
