/** @jsxImportSource react */
import type { ReactElement } from 'react';
import { useWords } from './context';
import { Layout, type Section } from './layout';
import { Organizations } from './pages/organizations';
import { Overview } from './pages/overview';
import { Users } from './pages/users';
import { usePath } from './router';

/** The console's sections; each is a page module and one entry here. */
export function ConsoleApp({ base }: { base: string }) {
  const t = useWords();
  const [path, go] = usePath(base);
  const sections: Section[] = [
    { path: '', label: t.overview },
    { path: 'organizations', label: t.organizations },
    { path: 'users', label: t.users },
  ];
  const pages: Record<string, () => ReactElement> = { '': Overview, organizations: Organizations, users: Users };
  const Page = pages[path];
  const page = Page ? <Page /> : <p>{t.notFound}</p>;
  return (
    <Layout title={t.console} base={base} sections={sections} current={path} go={go}>
      {page}
    </Layout>
  );
}
