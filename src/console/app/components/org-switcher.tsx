/** @jsxImportSource react */
import { useWords } from '../context';
import { useOrgScope } from '../scope';

/**
 * The top bar's choice of organization, for those who see more than one: the overview and the lists
 * (users, projects, authorizations, identity providers, events) show the chosen one's.
 */
export function OrgSwitcher() {
  const t = useWords();
  const scope = useOrgScope();
  if (scope.choices.length + (scope.all ? 1 : 0) < 2) return null;
  return (
    <span className="org-switcher">
      <label htmlFor="org-switcher">{t.organization}</label>
      <select id="org-switcher" value={scope.orgId ?? ''} onChange={(e) => scope.choose(e.target.value || undefined)}>
        {scope.all && <option value="">{t.allOrganizations}</option>}
        {scope.choices.map((o) => (
          <option key={o.id} value={o.id}>
            {o.name}
          </option>
        ))}
      </select>
    </span>
  );
}
