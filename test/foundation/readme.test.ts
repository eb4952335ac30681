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

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
function anchorOf(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of a markdown file's headings (outside code blocks). */
function anchorsOf(file: string): Set<string> {
  const anchors = new Set<string>();
  let fence = false;
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (line.startsWith('```')) fence = !fence;
    const heading = !fence && /^#{1,6} (.*)$/.exec(line);
    if (heading) anchors.add(anchorOf(heading[1]));
  }
  return anchors;
}

/** The anchors of a page's sections (## and ###, outside code blocks), in order. */
function sectionAnchors(file: string): string[] {
  const anchors: string[] = [];
  let fence = false;
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (line.startsWith('```')) fence = !fence;
    const heading = !fence && /^#{2,3} (.*)$/.exec(line);
    if (heading) anchors.push(anchorOf(heading[1]));
  }
  return anchors;
}

describe('the README and docs/', () => {
  const root = path.resolve(import.meta.dirname, '../..');
  const pages = ['README.md', 'CONTRIBUTING.md', ...fs.readdirSync(path.join(root, 'docs')).map((f) => `docs/${f}`)]
    .filter((f) => f.endsWith('.md'))
    .map((f) => path.join(root, f));

  it('link to files and headings that exist', () => {
    const broken: string[] = [];
    for (const page of pages) {
      const text = fs.readFileSync(page, 'utf8').replace(/^```[\s\S]*?^```$/gm, '');
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target)) continue;
        const [file, anchor] = target.split('#');
        const resolved = file ? path.resolve(path.dirname(page), file) : page;
        const name = `${path.relative(root, page)} → ${target}`;
        if (!fs.existsSync(resolved)) broken.push(`${name}: no such file`);
        else if (anchor && resolved.endsWith('.md') && !anchorsOf(resolved).has(anchor))
          broken.push(`${name}: no such heading`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('each start with a contents list of their sections', () => {
    for (const page of pages.filter((p) => !p.endsWith('CONTRIBUTING.md'))) {
      const text = fs.readFileSync(page, 'utf8');
      const contents = /^Contents:\n((?:\s*- .*\n)+)/m.exec(text);
      expect(contents, page).not.toBeNull();
      expect(text.indexOf('Contents:'), `${page}: contents at the top`).toBeLessThan(1000);
      const listed = [...contents![1].matchAll(/\(#([^)]+)\)/g)].map((m) => m[1]);
      expect(listed, page).toEqual(sectionAnchors(page));
    }
  });

  it('name no README section that moved to docs/', () => {
    for (const page of pages) expect(fs.readFileSync(page, 'utf8')).not.toMatch(/README's "|README,? "/);
  });
});
