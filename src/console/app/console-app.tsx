/** @jsxImportSource react */
import type { ReactElement } from 'react';
import { useWords } from './context';
import { Layout, type Section } from './layout';
import { Administrators } from './pages/administrators';
import { Authorizations } from './pages/authorizations';
import { Events } from './pages/events';
import { IdentityProviders } from './pages/identity-providers';
import { Organizations } from './pages/organizations';
import { Overview } from './pages/overview';
import { Projects } from './pages/projects';
import { Users } from './pages/users';
import { usePath } from './router';

type Page = (props: { rest: string; go: (to: string) => void }) => ReactElement;

/**
 * The console's sections: each is a page module and one entry here. A path's first segment names the
 * section; the rest (a project id) goes to its page.
 */
export function ConsoleApp({ base }: { base: string }) {
  const t = useWords();
  const [path, go] = usePath(base);
  const [section, ...rest] = path.split('/');
  const sections: (Section & { page: Page })[] = [
    { path: '', label: t.overview, page: Overview },
    { path: 'organizations', label: t.organizations, page: Organizations },
    { path: 'users', label: t.users, page: Users },
    { path: 'projects', label: t.projects, page: Projects },
    { path: 'authorizations', label: t.authorizations, page: Authorizations },
    { path: 'administrators', label: t.administrators, page: Administrators },
    { path: 'identity-providers', label: t.identityProviders, page: IdentityProviders },
    { path: 'events', label: t.events, page: Events },
  ];
  const Page = sections.find((s) => s.path === section)?.page;
  return (
    <Layout title={t.console} base={base} sections={sections} current={section} go={go}>
      {Page ? <Page rest={rest.join('/')} go={go} /> : <p>{t.notFound}</p>}
    </Layout>
  );
}
