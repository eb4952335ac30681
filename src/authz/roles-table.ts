import { PERMISSIONS, type Permission, ROLE_NAMES, ROLES, type RoleName } from './roles';

/**
 * The role → permission table of docs/permissions.md, rendered from the one table in roles.ts. A test
 * compares the document with this output, so the documentation cannot drift from the code.
 */
export function rolesTableMarkdown(): string {
  const header = `| permission | ${ROLE_NAMES.join(' | ')} |`;
  const on = `| *granted on* | ${ROLE_NAMES.map((r) => ROLES[r].on.toLowerCase()).join(' | ')} |`;
  const rule = `| --- | ${ROLE_NAMES.map(() => ':-:').join(' | ')} |`;
  const granted = (role: RoleName, p: Permission) => (ROLES[role].permissions as readonly string[]).includes(p);
  const rows = PERMISSIONS.map(
    (p) => `| \`${p}\` | ${ROLE_NAMES.map((r) => (granted(r, p) ? '✓' : '')).join(' | ')} |`,
  );
  return [header, rule, on, ...rows].join('\n');
}
