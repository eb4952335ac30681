// Fails when a tracked source line is longer than 120 columns. Biome wraps code at that width but
// leaves comments and long string literals alone, so this catches what the formatter cannot.
// Usage: node bin/check-line-length.mjs <folder or file>...   (prints file:line: N columns, exits 1)
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

const MAX_COLUMNS = 120;
const SOURCE = /\.(ts|tsx|mjs|js)$/;
// Benchmark output and scratch files are generated, not written by hand.
const GENERATED = /^bench\/(results|tmp)\//;

const targets = process.argv.slice(2);
if (targets.length === 0) {
  console.error('usage: node bin/check-line-length.mjs <folder or file>...');
  process.exit(2);
}

// Only tracked files count: untracked scratch files and ignored build output are not the project's code.
const files = execFileSync('git', ['ls-files', '-z', '--', ...targets], { encoding: 'utf8' })
  .split('\0')
  .filter((file) => SOURCE.test(file) && !GENERATED.test(file));

let offenders = 0;
for (const file of files) {
  if (!fs.existsSync(file)) continue; // deleted in the work tree but not yet in the index
  const lines = fs.readFileSync(file, 'utf8').split(/\r?\n/);
  lines.forEach((line, index) => {
    // Count code points, not UTF-16 units, so an emoji or accented letter is one column.
    const columns = [...line].length;
    if (columns > MAX_COLUMNS) {
      console.log(`${file}:${index + 1}: ${columns} columns`);
      offenders++;
    }
  });
}

if (offenders > 0) {
  console.error(`${offenders} line(s) over ${MAX_COLUMNS} columns`);
  process.exit(1);
}
