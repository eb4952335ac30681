import { Layout, type PageProps } from './layout';

/** The logged-out page and the error page: a title and a sentence. */
export function MessagePage(p: PageProps & { title: string; text: string; detail?: string }) {
  return (
    <Layout {...p} title={p.title}>
      <p role={p.detail ? 'alert' : undefined}>{p.text}</p>
      {p.detail && <p class="hint">{p.detail}</p>}
    </Layout>
  );
}
