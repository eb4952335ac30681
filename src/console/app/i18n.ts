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
  organizations: 'Organizations',
  newOrganization: 'New organization',
  primaryDomain: 'Primary domain',
  state: 'State',
  any: 'Any',
  active: 'Active',
  inactive: 'Inactive',
  actions: 'Actions',
  searchByName: 'Search by name',
  create: 'Create',
  deactivate: 'Deactivate',
  activate: 'Activate',
  delete: 'Delete',
  cancel: 'Cancel',
  previous: 'Previous',
  next: 'Next',
  none: 'Nothing found',
  range: (from: number, to: number, total: number) => `${from}–${to} of ${total}`,
  confirmDeleteOrg: (name: string) =>
    `Delete the organization “${name}” with its users, projects and applications? This cannot be undone.`,
  confirmDeactivateOrg: (name: string) =>
    `Deactivate “${name}”? Its users can no longer sign in until it is activated.`,
  users: 'Users',
  newUser: 'New user',
  search: 'Search',
  locked: 'Locked',
  loginName: 'Login name',
  kind: 'Kind',
  human: 'Human',
  machine: 'Machine',
  lock: 'Lock',
  unlock: 'Unlock',
  reactivate: 'Reactivate',
  organization: 'Organization',
  givenName: 'Given name',
  familyName: 'Family name',
  email: 'Email',
  username: 'Username',
  initialPassword: 'Initial password (changed at first sign-in)',
  confirmUser: (action: string, name: string) =>
    action === 'delete'
      ? `Delete the user “${name}”? Their sessions and tokens end; this cannot be undone.`
      : action === 'lock'
        ? `Lock “${name}”? They cannot sign in until unlocked.`
        : `Deactivate “${name}”? They cannot sign in until reactivated.`,
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
  organizations: 'Organisationen',
  newOrganization: 'Neue Organisation',
  primaryDomain: 'Primäre Domain',
  state: 'Status',
  any: 'Alle',
  active: 'Aktiv',
  inactive: 'Inaktiv',
  actions: 'Aktionen',
  searchByName: 'Nach Namen suchen',
  create: 'Erstellen',
  deactivate: 'Deaktivieren',
  activate: 'Aktivieren',
  delete: 'Löschen',
  cancel: 'Abbrechen',
  previous: 'Zurück',
  next: 'Weiter',
  none: 'Nichts gefunden',
  range: (from: number, to: number, total: number) => `${from}–${to} von ${total}`,
  confirmDeleteOrg: (name: string) =>
    `Die Organisation „${name}“ mit ihren Benutzern, Projekten und Anwendungen löschen? ` +
    'Das lässt sich nicht rückgängig machen.',
  confirmDeactivateOrg: (name: string) =>
    `„${name}“ deaktivieren? Ihre Benutzer können sich erst wieder anmelden, wenn sie aktiviert ist.`,
  users: 'Benutzer',
  newUser: 'Neuer Benutzer',
  search: 'Suchen',
  locked: 'Gesperrt',
  loginName: 'Loginname',
  kind: 'Art',
  human: 'Person',
  machine: 'Maschine',
  lock: 'Sperren',
  unlock: 'Entsperren',
  reactivate: 'Reaktivieren',
  organization: 'Organisation',
  givenName: 'Vorname',
  familyName: 'Nachname',
  email: 'E-Mail',
  username: 'Benutzername',
  initialPassword: 'Erstes Passwort (bei der ersten Anmeldung zu ändern)',
  confirmUser: (action: string, name: string) =>
    action === 'delete'
      ? `Den Benutzer „${name}“ löschen? Sitzungen und Tokens enden; das lässt sich nicht rückgängig machen.`
      : action === 'lock'
        ? `„${name}“ sperren? Die Anmeldung ist erst nach dem Entsperren wieder möglich.`
        : `„${name}“ deaktivieren? Die Anmeldung ist erst nach dem Reaktivieren wieder möglich.`,
};

export function wordsFor(lang: string): Words {
  return lang.startsWith('de') ? de : en;
}
