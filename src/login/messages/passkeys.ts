/** Passkeys and security keys (src/login/steps/passkeys.tsx, src/login/passkey-registration.tsx). */
export const passkeysEn = {
  passkeySignIn: 'Sign in with a passkey',
  passkeyTitle: 'Sign in with a passkey',
  passkeyText: 'Use a passkey saved on this device, on your phone or in your password manager.',
  passkeyUse: 'Use a passkey',
  passkeyOther: 'Sign in with your login name instead',
  webauthnTitle: 'Security key or passkey',
  webauthnText: 'Confirm your sign-in with your security key or passkey.',
  webauthnUse: 'Use security key or passkey',
  webauthnFailed: 'That did not work. Try again, or choose another way to sign in.',
  webauthnNoScript: 'Passkeys and security keys need JavaScript in this browser.',
  setupPasskeyTitle: 'Set up a passkey',
  setupPasskeyText: 'With a passkey you sign in with your fingerprint, face or screen lock instead of a password.',
  setupPasskeyCreate: 'Create a passkey',
  passkeyNameLabel: 'Name of the passkey (optional)',
  passkeyRegistrationTitle: 'Register a passkey',
  passkeyRegistrationText: 'Create a passkey for {loginName} on this device.',
  passkeyRegistrationDone: 'Your passkey is registered. You can now sign in with it.',
  passkeyRegistrationInvalid: 'This link is invalid, expired or was used already. Ask for a new one.',
};

export const passkeysDe: typeof passkeysEn = {
  passkeySignIn: 'Mit einem Passkey anmelden',
  passkeyTitle: 'Mit einem Passkey anmelden',
  passkeyText: 'Verwenden Sie einen Passkey auf diesem Gerät, Ihrem Telefon oder in Ihrem Passwortmanager.',
  passkeyUse: 'Passkey verwenden',
  passkeyOther: 'Stattdessen mit dem Loginnamen anmelden',
  webauthnTitle: 'Sicherheitsschlüssel oder Passkey',
  webauthnText: 'Bestätigen Sie Ihre Anmeldung mit Ihrem Sicherheitsschlüssel oder Passkey.',
  webauthnUse: 'Sicherheitsschlüssel oder Passkey verwenden',
  webauthnFailed: 'Das hat nicht geklappt. Versuchen Sie es erneut oder wählen Sie einen anderen Weg.',
  webauthnNoScript: 'Passkeys und Sicherheitsschlüssel brauchen in diesem Browser JavaScript.',
  setupPasskeyTitle: 'Passkey einrichten',
  setupPasskeyText:
    'Mit einem Passkey melden Sie sich per Fingerabdruck, Gesichtserkennung oder Bildschirmsperre an ' +
    'statt mit einem Passwort.',
  setupPasskeyCreate: 'Passkey erstellen',
  passkeyNameLabel: 'Name des Passkeys (optional)',
  passkeyRegistrationTitle: 'Passkey registrieren',
  passkeyRegistrationText: 'Erstellen Sie auf diesem Gerät einen Passkey für {loginName}.',
  passkeyRegistrationDone: 'Ihr Passkey ist registriert. Sie können sich jetzt damit anmelden.',
  passkeyRegistrationInvalid:
    'Dieser Link ist ungültig, abgelaufen oder wurde schon verwendet. Fordern Sie einen neuen an.',
};
