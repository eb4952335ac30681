/** @jsxImportSource react */
import type { MouseEvent, ReactNode } from 'react';
import { BrandMark, Icon, type IconName } from './components/icons';
import { OrgSwitcher } from './components/org-switcher';
import { useUser, useWords } from './context';

export interface Section {
  path: string;
  label: string;
  icon: IconName;
}

/** Header, the sections' navigation and the page; a skip link first for keyboard users. */
export function Layout(props: {
  title: string;
  base: string;
  sections: Section[];
  current: string;
  go: (to: string) => void;
  children: ReactNode;
}) {
  const t = useWords();
  const user = useUser();
  const follow = (to: string) => (e: MouseEvent) => {
    if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    props.go(to);
  };
  return (
    <>
      <a className="skip" href="#main">
        {t.skipToContent}
      </a>
      <header className="top">
        <span className="brand">
          <BrandMark />
          <span>
            {t.product} <span className="brand-app">{props.title}</span>
          </span>
        </span>
        <OrgSwitcher />
        <span className="who">
          {t.signedInAs} <strong>{user.name}</strong>
        </span>
        {/* the other app of the same bundle: one's own account from the console, and back */}
        {props.base === '/ui/console' ? <a href="/ui/account/">{t.account}</a> : <a href="/ui/console/">{t.console}</a>}
        <button type="button" onClick={user.signOut}>
          <Icon name="signOut" />
          {t.signOut}
        </button>
      </header>
      <div className="frame">
        <nav aria-label={t.nav}>
          <ul>
            {props.sections.map((s) => (
              <li key={s.path}>
                <a
                  href={`${props.base}/${s.path}`}
                  aria-current={s.path === props.current ? 'page' : undefined}
                  onClick={follow(s.path)}
                >
                  <Icon name={s.icon} />
                  {s.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <main id="main" tabIndex={-1}>
          {props.children}
        </main>
      </div>
    </>
  );
}
