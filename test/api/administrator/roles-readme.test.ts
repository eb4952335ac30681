import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { rolesTableMarkdown } from '../../../src/authz/roles-table';

describe('README permission table', () => {
  it('is the role → permission table of src/authz/roles.ts', () => {
    const readme = fs.readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
    const start = readme.indexOf('\n## Permissions\n');
    expect(start).toBeGreaterThan(-1);
    const next = readme.indexOf('\n## ', start + 1);
    const section = readme.slice(start, next === -1 ? undefined : next);
    // regenerate with: npx tsx -e "import('./src/authz/roles-table.ts').then(m => console.log(m.rolesTableMarkdown()))"
    expect(section).toContain(rolesTableMarkdown());
  });
});
