import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SETTINGS, settingsTableRows } from '../../src/config';

/** A row of the settings table: every setting is PORT, DATABASE_… or PORTCULLIS_…. */
const SETTING_ROW = /^\| `(?:PORTCULLIS_|DATABASE_|PORT\b)/;

describe('docs/settings.md', () => {
  const settings = fs.readFileSync(path.resolve(import.meta.dirname, '../../docs/settings.md'), 'utf8');

  it('documents every setting with its default, exactly as the code declares it', () => {
    const tableRows = settings.split('\n').filter((line) => SETTING_ROW.test(line));
    expect(tableRows).toEqual(settingsTableRows());
  });

  it('documents no setting the code does not read', () => {
    const documented = [...settings.matchAll(/^\| `((?:PORTCULLIS_|DATABASE_|PORT\b)[A-Z_]*)` \|/gm)].map((m) => m[1]);
    expect(documented.sort()).toEqual(SETTINGS.map((s) => s.env).sort());
  });
});
