/** @jsxImportSource react */
import { useWords } from './context';
import { Layout, type Section } from './layout';
import { Overview } from './pages/overview';
import { usePath } from './router';

/** The console's sections; each is a page module and one entry here. */
export function ConsoleApp({ base }: { base: string }) {
  const t = useWords();
  const [path, go] = usePath(base);
  const sections: Section[] = [{ path: '', label: t.overview }];
  const page = path === '' ? <Overview /> : <p>{t.notFound}</p>;
  return (
    <Layout title={t.console} base={base} sections={sections} current={path} go={go}>
      {page}
    </Layout>
  );
}
