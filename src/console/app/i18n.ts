/** The console's words in the login's languages; the page's `lang` (from Accept-Language) picks one. */
const en = {
  product: 'Portcullis',
  console: 'Console',
  account: 'Account',
  signOut: 'Sign out',
  signingIn: 'Signing in…',
  loading: 'Loading…',
  nav: 'Sections',
  overview: 'Overview',
  instance: 'Instance',
  name: 'Name',
  id: 'ID',
  domains: 'Domains',
  created: 'Created',
  signedInAs: 'Signed in as',
  notFound: 'There is no such page.',
  errorTitle: 'Something went wrong',
  noPermission: 'Your account may not see this.',
};

export type Words = typeof en;

const de: Words = {
  product: 'Portcullis',
  console: 'Konsole',
  account: 'Konto',
  signOut: 'Abmelden',
  signingIn: 'Anmeldung…',
  loading: 'Wird geladen…',
  nav: 'Bereiche',
  overview: 'Übersicht',
  instance: 'Instanz',
  name: 'Name',
  id: 'ID',
  domains: 'Domains',
  created: 'Erstellt',
  signedInAs: 'Angemeldet als',
  notFound: 'Diese Seite gibt es nicht.',
  errorTitle: 'Etwas ist schiefgegangen',
  noPermission: 'Ihr Konto darf dies nicht sehen.',
};

export function wordsFor(lang: string): Words {
  return lang.startsWith('de') ? de : en;
}
