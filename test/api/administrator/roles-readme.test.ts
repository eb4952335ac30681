import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { rolesTableMarkdown } from '../../../src/authz/roles-table';

describe('docs/permissions.md', () => {
  it('holds the role → permission table of src/authz/roles.ts', () => {
    const doc = fs.readFileSync(new URL('../../../docs/permissions.md', import.meta.url), 'utf8');
    // regenerate with: npx tsx -e "import('./src/authz/roles-table.ts').then(m => console.log(m.rolesTableMarkdown()))"
    expect(doc).toContain(rolesTableMarkdown());
  });
});
