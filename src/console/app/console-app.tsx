/** @jsxImportSource react */
import type { ReactElement } from 'react';
import { useWords } from './context';
import { Layout, type Section } from './layout';
import { Administrators } from './pages/administrators';
import { Authorizations } from './pages/authorizations';
import { Events } from './pages/events';
import { IdentityProviders } from './pages/identity-providers';
import { Import } from './pages/import';
import { Instance } from './pages/instance';
import { Organizations } from './pages/organizations';
import { Overview } from './pages/overview';
import { Projects } from './pages/projects';
import { Users } from './pages/users';
import { usePermissions } from './permissions';
import { usePath } from './router';
import { OrgScopeContext, useOrgScopeState } from './scope';

type Page = (props: { rest: string; go: (to: string) => void }) => ReactElement;

/**
 * The console's sections: each is a page module and one entry here. A path's first segment names the
 * section; the rest (a project id) goes to its page.
 */
export function ConsoleApp({ base }: { base: string }) {
  const t = useWords();
  const [path, go] = usePath(base);
  const [section, ...rest] = path.split('/');
  // Only instance administrators get the instance and import entries in the navigation; their addresses
  // still open the pages for anyone, where the refusal is shown.
  const { can } = usePermissions();
  const scope = useOrgScopeState();
  const sections: (Section & { page: Page; hidden?: boolean })[] = [
    { path: '', label: t.overview, icon: 'overview', page: Overview },
    { path: 'organizations', label: t.organizations, icon: 'organizations', page: Organizations },
    { path: 'users', label: t.users, icon: 'users', page: Users },
    { path: 'projects', label: t.projects, icon: 'projects', page: Projects },
    { path: 'authorizations', label: t.authorizations, icon: 'authorizations', page: Authorizations },
    { path: 'administrators', label: t.administrators, icon: 'administrators', page: Administrators },
    { path: 'identity-providers', label: t.identityProviders, icon: 'link', page: IdentityProviders },
    { path: 'events', label: t.events, icon: 'events', page: Events },
    { path: 'instance', label: t.instance, icon: 'instance', page: Instance, hidden: !can('iam.read') },
    { path: 'import', label: t.import, icon: 'import', page: Import, hidden: !can('iam.write') },
  ];
  const Page = sections.find((s) => s.path === section)?.page;
  return (
    <OrgScopeContext.Provider value={scope}>
      <Layout title={t.console} base={base} sections={sections.filter((s) => !s.hidden)} current={section} go={go}>
        {/* another organization chosen in the top bar: the page starts over (filters, page) for it */}
        {Page ? <Page key={scope.orgId ?? ''} rest={rest.join('/')} go={go} /> : <p>{t.notFound}</p>}
      </Layout>
    </OrgScopeContext.Provider>
  );
}
