import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SETTINGS, settingsTableRows } from '../../src/config';

describe('README', () => {
  const readme = fs.readFileSync(path.resolve(import.meta.dirname, '../../README.md'), 'utf8');

  it('documents every setting with its default, exactly as the code declares it', () => {
    const tableRows = readme.split('\n').filter((line) => /^\| `(?:PORTCULLIS_|DATABASE_URL|PORT\b)/.test(line));
    expect(tableRows).toEqual(settingsTableRows());
  });

  it('documents no setting the code does not read', () => {
    const documented = [...readme.matchAll(/^\| `((?:PORTCULLIS_|DATABASE_URL|PORT\b)[A-Z_]*)` \|/gm)].map((m) => m[1]);
    expect(documented.sort()).toEqual(SETTINGS.map((s) => s.env).sort());
  });
});
