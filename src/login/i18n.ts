import { codesDe, codesEn } from './messages/codes';
import { deviceDe, deviceEn } from './messages/device';
import { idpDe, idpEn } from './messages/idp';
import { mfaDe, mfaEn } from './messages/mfa';
import { passkeysDe, passkeysEn } from './messages/passkeys';
import { passwordsDe, passwordsEn } from './messages/passwords';

/** Languages of the hosted login. ui_locales picks one; otherwise Accept-Language; otherwise English. */
export const LOCALES = ['en', 'de'] as const;
export type Locale = (typeof LOCALES)[number];

const en = {
  ...codesEn,
  ...idpEn,
  title: 'Sign in',
  loginNameLabel: 'Login name',
  loginNameHint: 'Your username, username@organization-domain, or your verified email address',
  next: 'Next',
  passwordTitle: 'Enter your password',
  passwordLabel: 'Password',
  signIn: 'Sign in',
  notYou: 'Use another account',
  invalidCredentials: 'The login name or the password is wrong.',
  locked: 'This account is locked. Please contact your administrator.',
  selectAccountTitle: 'Choose an account',
  otherAccount: 'Use another account',
  createAccount: 'Create an account',
  registerTitle: 'Create your account',
  givenName: 'First name',
  familyName: 'Last name',
  email: 'Email',
  username: 'Username (optional, the email is used otherwise)',
  passwordConfirm: 'Repeat the password',
  register: 'Create account',
  passwordsDiffer: 'The passwords do not match.',
  registrationRefused: 'This account could not be created. If you already have one, sign in instead.',
  logoutConfirmTitle: 'Sign out?',
  logoutConfirmText: 'An application asks to sign you out of this browser. Sign out only if you started this.',
  logoutConfirmButton: 'Sign out',
  loggedOutTitle: 'You are signed out',
  loggedOutText: 'You have been signed out. You can close this window.',
  loggedOutReturnText: 'You have been signed out. You are taken back to the application.',
  loggedOutContinue: 'Continue',
  errorTitle: 'Something went wrong',
  requestExpired: 'The sign-in request has expired or was already used. Please start again from the application.',
  csrf: 'The form has expired. Please try again.',
  tooManyRequests: 'Too many sign-in attempts from your network. Please wait {seconds} seconds and try again.',
  sessionEnded: 'session ended',
  signedIn: 'signed in',
  emailCodeSent: 'We sent a verification code to your email address.',
  skipToForm: 'Skip to the form',
  verifyEmailTitle: 'Verify your email address',
  verifyEmailText: 'We sent a verification code to {email}. Enter it here to continue.',
  codeLabel: 'Verification code',
  verify: 'Verify',
  resendCode: 'Send a new code',
  codeResent: 'We sent you a new code.',
  invalidCode: 'The code is wrong or has expired.',
  passwordChangeTitle: 'Set a new password',
  passwordChangeText: 'Your password must be changed before you continue.',
  newPassword: 'New password',
  changePassword: 'Change password',
  ...mfaEn,
  ...passkeysEn,
  ...deviceEn,
  ...passwordsEn,
};
export type Messages = typeof en;

const de: Messages = {
  ...codesDe,
  ...idpDe,
  title: 'Anmelden',
  loginNameLabel: 'Loginname',
  loginNameHint: 'Ihr Benutzername, benutzername@organisations-domain oder Ihre bestätigte E-Mail-Adresse',
  next: 'Weiter',
  passwordTitle: 'Passwort eingeben',
  passwordLabel: 'Passwort',
  signIn: 'Anmelden',
  notYou: 'Anderes Konto verwenden',
  invalidCredentials: 'Der Loginname oder das Passwort ist falsch.',
  locked: 'Dieses Konto ist gesperrt. Bitte wenden Sie sich an Ihre Administration.',
  selectAccountTitle: 'Konto auswählen',
  otherAccount: 'Anderes Konto verwenden',
  createAccount: 'Konto erstellen',
  registerTitle: 'Konto erstellen',
  givenName: 'Vorname',
  familyName: 'Nachname',
  email: 'E-Mail',
  username: 'Benutzername (optional, sonst wird die E-Mail verwendet)',
  passwordConfirm: 'Passwort wiederholen',
  register: 'Konto erstellen',
  passwordsDiffer: 'Die Passwörter stimmen nicht überein.',
  registrationRefused: 'Dieses Konto konnte nicht angelegt werden. Wenn Sie schon eines haben, melden Sie sich an.',
  logoutConfirmTitle: 'Abmelden?',
  logoutConfirmText:
    'Eine Anwendung möchte Sie in diesem Browser abmelden. Melden Sie sich nur ab, wenn Sie das veranlasst haben.',
  logoutConfirmButton: 'Abmelden',
  loggedOutTitle: 'Sie sind abgemeldet',
  loggedOutText: 'Sie wurden abgemeldet. Sie können dieses Fenster schließen.',
  loggedOutReturnText: 'Sie wurden abgemeldet und werden zur Anwendung zurückgeleitet.',
  loggedOutContinue: 'Weiter',
  errorTitle: 'Etwas ist schiefgelaufen',
  requestExpired:
    'Die Anmeldeanfrage ist abgelaufen oder wurde bereits verwendet. Bitte starten Sie erneut in der Anwendung.',
  csrf: 'Das Formular ist abgelaufen. Bitte versuchen Sie es erneut.',
  tooManyRequests:
    'Zu viele Anmeldeversuche aus Ihrem Netzwerk. ' +
    'Bitte warten Sie {seconds} Sekunden und versuchen Sie es dann erneut.',
  sessionEnded: 'Sitzung beendet',
  signedIn: 'angemeldet',
  emailCodeSent: 'Wir haben einen Bestätigungscode an Ihre E-Mail-Adresse gesendet.',
  skipToForm: 'Zum Formular springen',
  verifyEmailTitle: 'E-Mail-Adresse bestätigen',
  verifyEmailText: 'Wir haben einen Bestätigungscode an {email} gesendet. Geben Sie ihn hier ein, um fortzufahren.',
  codeLabel: 'Bestätigungscode',
  verify: 'Bestätigen',
  resendCode: 'Neuen Code senden',
  codeResent: 'Wir haben Ihnen einen neuen Code gesendet.',
  invalidCode: 'Der Code ist falsch oder abgelaufen.',
  passwordChangeTitle: 'Neues Passwort festlegen',
  passwordChangeText: 'Sie müssen Ihr Passwort ändern, bevor Sie fortfahren.',
  newPassword: 'Neues Passwort',
  changePassword: 'Passwort ändern',
  ...mfaDe,
  ...passkeysDe,
  ...deviceDe,
  ...passwordsDe,
};

const MESSAGES: Record<Locale, Messages> = { en, de };

function match(tag: string): Locale | undefined {
  const base = tag.trim().toLowerCase().split(/[-_]/)[0];
  return (LOCALES as readonly string[]).includes(base) ? (base as Locale) : undefined;
}

/** First ui_locales entry we speak; else the best Accept-Language entry; else English. */
export function pickLocale(uiLocales: string[] | undefined, acceptLanguage: string | undefined): Locale {
  for (const l of uiLocales ?? []) {
    const m = match(l);
    if (m) return m;
  }
  const ranked = (acceptLanguage ?? '')
    .split(',')
    .map((part) => {
      const [tag, ...rest] = part.split(';');
      const q = rest.find((r) => r.trim().startsWith('q='));
      return { tag, q: q ? Number(q.trim().slice(2)) || 0 : 1 };
    })
    .sort((a, b) => b.q - a.q);
  for (const r of ranked) {
    const m = match(r.tag);
    if (m && r.q > 0) return m;
  }
  return 'en';
}

export function messages(locale: Locale): Messages {
  return MESSAGES[locale];
}
