/** @jsxImportSource react */
import type { ReactElement } from 'react';
import { useWords } from '../context';
import { Layout, type Section } from '../layout';
import { usePath } from '../router';
import { AuthorizedApplications } from './authorized-applications';
import { LinkedAccounts } from './linked-accounts';
import { Profile } from './profile';
import { Security } from './security';
import { Sessions } from './sessions';

/**
 * The account page of every signed-in user: the console's layout and components, with pages that only
 * ever name the caller's own user id (from the ID token), through the API's self-service rules.
 */
export function AccountApp({ base }: { base: string }) {
  const t = useWords();
  const [path, go] = usePath(base);
  const section = path.split('/')[0];
  const sections: (Section & { page: () => ReactElement })[] = [
    { path: '', label: t.profile, icon: 'profile', page: Profile },
    { path: 'security', label: t.security, icon: 'security', page: Security },
    { path: 'linked-accounts', label: t.linkedAccounts, icon: 'link', page: LinkedAccounts },
    { path: 'sessions', label: t.sessions, icon: 'sessions', page: Sessions },
    { path: 'applications', label: t.authorizedApps, icon: 'applications', page: AuthorizedApplications },
  ];
  const Page = sections.find((s) => s.path === section)?.page;
  return (
    <Layout title={t.account} base={base} sections={sections} current={section} go={go}>
      {Page ? <Page /> : <p>{t.notFound}</p>}
    </Layout>
  );
}
