/** @jsxImportSource react */
import type { ReactNode } from 'react';

/**
 * The console's icons: simple line drawings on a 24-unit grid, inline so that the page needs no icon font
 * or other download, drawn in the text colour. They decorate a label that is always there, so screen
 * readers skip them.
 */
const PATHS = {
  overview: (
    <>
      <rect x="3.5" y="3.5" width="7" height="7" rx="1.5" />
      <rect x="13.5" y="3.5" width="7" height="7" rx="1.5" />
      <rect x="3.5" y="13.5" width="7" height="7" rx="1.5" />
      <rect x="13.5" y="13.5" width="7" height="7" rx="1.5" />
    </>
  ),
  organizations: (
    <>
      <path d="M4 20.5V5.5l8-2.5v17.5" />
      <path d="M12 8.5l8 2.5v9.5" />
      <path d="M2.5 20.5h19M7 8h2M7 11.5h2M7 15h2M15 13.5h2M15 17h2" />
    </>
  ),
  users: (
    <>
      <circle cx="9" cy="8" r="3.5" />
      <path d="M2.5 20c.6-3.6 3.3-5.5 6.5-5.5s5.9 1.9 6.5 5.5" />
      <path d="M15.5 4.8a3.5 3.5 0 0 1 0 6.4M18 14.8c1.9.7 3.1 2.5 3.5 5.2" />
    </>
  ),
  projects: (
    <path
      d={
        'M3 6.5A1.5 1.5 0 0 1 4.5 5h4.2l2 2.2h8.8A1.5 1.5 0 0 1 21 8.7v9.8' +
        'a1.5 1.5 0 0 1-1.5 1.5h-15A1.5 1.5 0 0 1 3 18.5z'
      }
    />
  ),
  authorizations: (
    <>
      <circle cx="8" cy="15" r="4.5" />
      <path d="M11.2 11.8L20 3M16.5 6.5l2.5 2.5M14 9l2 2" />
    </>
  ),
  administrators: (
    <>
      <path d="M12 3l7.5 3v5.5c0 4.6-3.1 8.1-7.5 9.5-4.4-1.4-7.5-4.9-7.5-9.5V6z" />
      <path d="M9 12l2.2 2.2L15.5 10" />
    </>
  ),
  link: (
    <>
      <path d="M10 14a4.2 4.2 0 0 0 6 0l3-3a4.2 4.2 0 0 0-6-6l-1 1" />
      <path d="M14 10a4.2 4.2 0 0 0-6 0l-3 3a4.2 4.2 0 0 0 6 6l1-1" />
    </>
  ),
  events: (
    <>
      <circle cx="12" cy="12" r="8.5" />
      <path d="M12 7.5V12l3 2" />
    </>
  ),
  instance: (
    <>
      <rect x="3.5" y="4" width="17" height="6.5" rx="1.5" />
      <rect x="3.5" y="13.5" width="17" height="6.5" rx="1.5" />
      <path d="M7 7.2h.01M7 16.8h.01M11 7.2h6M11 16.8h6" />
    </>
  ),
  import: (
    <>
      <path d="M12 3.5v11M7.5 10l4.5 4.5 4.5-4.5" />
      <path d="M4 15.5v3A1.5 1.5 0 0 0 5.5 20h13a1.5 1.5 0 0 0 1.5-1.5v-3" />
    </>
  ),
  plus: <path d="M12 5v14M5 12h14" />,
  profile: (
    <>
      <circle cx="12" cy="9" r="3.8" />
      <path d="M5 20c.8-3.8 3.6-5.8 7-5.8s6.2 2 7 5.8" />
    </>
  ),
  security: (
    <>
      <rect x="4.5" y="10.5" width="15" height="10" rx="2" />
      <path d="M8 10.5V7.5a4 4 0 0 1 8 0v3M12 14.5v2.5" />
    </>
  ),
  sessions: (
    <>
      <rect x="3" y="4.5" width="18" height="12" rx="1.5" />
      <path d="M9 20h6M12 16.5V20" />
    </>
  ),
  applications: (
    <>
      <rect x="3.5" y="4.5" width="17" height="15" rx="2" />
      <path d="M3.5 9h17M6.5 6.8h.01M9 6.8h.01" />
    </>
  ),
  signOut: (
    <>
      <path d="M14 4.5H6A1.5 1.5 0 0 0 4.5 6v12A1.5 1.5 0 0 0 6 19.5h8" />
      <path d="M10.5 12H20M16.5 8.5L20 12l-3.5 3.5" />
    </>
  ),
} satisfies Record<string, ReactNode>;

export type IconName = keyof typeof PATHS;

export function Icon({ name }: { name: IconName }) {
  return (
    <svg
      className="icon"
      aria-hidden="true"
      focusable="false"
      viewBox="0 0 24 24"
      width="18"
      height="18"
      fill="none"
      stroke="currentColor"
      strokeWidth="1.8"
      strokeLinecap="round"
      strokeLinejoin="round"
    >
      {PATHS[name]}
    </svg>
  );
}

/** The product's mark: a portcullis, a gate's grille with the points at its foot. */
export function BrandMark() {
  return (
    <svg className="brand-mark" aria-hidden="true" focusable="false" viewBox="0 0 32 32" width="28" height="28">
      <rect x="1" y="1" width="30" height="30" rx="7" fill="var(--accent)" />
      <g stroke="var(--on-accent)" strokeWidth="2.2" strokeLinecap="round" fill="none">
        <path d="M8 8h16M8 14h16M8 20h16" />
        <path d="M10 8v15M16 8v15M22 8v15" />
      </g>
      <g fill="var(--on-accent)">
        <path d="M8.6 23h2.8L10 26.5zM14.6 23h2.8L16 26.5zM20.6 23h2.8L22 26.5z" />
      </g>
    </svg>
  );
}
