import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SETTINGS } from '../../src/config';

describe('README', () => {
  const readme = fs.readFileSync(path.resolve(import.meta.dirname, '../../README.md'), 'utf8');

  it('documents every setting with its default, exactly as the code defines it', () => {
    for (const s of SETTINGS) {
      expect(readme).toContain(`| \`${s.env}\` | \`${s.default}\` | ${s.meaning} |`);
    }
  });

  it('documents no setting the code does not read', () => {
    const documented = [...readme.matchAll(/^\| `((?:PORTCULLIS_|DATABASE_URL|PORT\b)[A-Z_]*)` \|/gm)].map((m) => m[1]);
    expect(documented.sort()).toEqual(SETTINGS.map((s) => s.env).sort());
  });
});
