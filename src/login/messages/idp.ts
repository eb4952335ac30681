/** Strings of sign-ins through external identity providers. */
export const idpEn = {
  idpOr: 'or sign in with',
  idpSignInWith: 'Sign in with {name}',
  idpLdapTitle: 'Sign in with {name}',
  idpLdapUsername: 'Username',
  idpLinkTitle: 'Link your account',
  idpLinkText: 'You already have an account ({loginName}). Link your {provider} account to it?',
  idpLinkPasswordText: 'Enter the password of your account {loginName} to link your {provider} account to it.',
  idpLink: 'Link and continue',
  idpCreateTitle: 'Create your account',
  idpCreateText: 'Check the details your {provider} account gave us and complete what is missing.',
  idpCreate: 'Create account',
  idpNoAccountTitle: 'No account found',
  idpNoAccountText:
    'Your {provider} account is not linked to an account here, and {provider} cannot create one. ' +
    'Sign in with your account instead.',
  idpLinkLaterText:
    'Your {provider} account is not linked to an account here yet. Sign in with your account, ' +
    'and your {provider} account will be linked to it.',
  idpLinkLater: 'Sign in to link',
  idpLinkOtherWay: 'No password? Sign in another way (for example with your passkey) to link',
  idpFailedTitle: 'Sign-in failed',
  idpBackToLogin: 'Back to sign-in',
  idpRedirecting: 'Continue',
};

export const idpDe: typeof idpEn = {
  idpOr: 'oder anmelden mit',
  idpSignInWith: 'Mit {name} anmelden',
  idpLdapTitle: 'Mit {name} anmelden',
  idpLdapUsername: 'Benutzername',
  idpLinkTitle: 'Konto verknüpfen',
  idpLinkText: 'Sie haben bereits ein Konto ({loginName}). Ihr {provider}-Konto damit verknüpfen?',
  idpLinkPasswordText:
    'Geben Sie das Passwort Ihres Kontos {loginName} ein, um Ihr {provider}-Konto damit zu verknüpfen.',
  idpLink: 'Verknüpfen und weiter',
  idpCreateTitle: 'Konto anlegen',
  idpCreateText: 'Prüfen Sie die Angaben Ihres {provider}-Kontos und ergänzen Sie, was fehlt.',
  idpCreate: 'Konto anlegen',
  idpNoAccountTitle: 'Kein Konto gefunden',
  idpNoAccountText:
    'Ihr {provider}-Konto ist mit keinem Konto hier verknüpft, und {provider} kann keines anlegen. ' +
    'Melden Sie sich mit Ihrem Konto an.',
  idpLinkLaterText:
    'Ihr {provider}-Konto ist noch mit keinem Konto hier verknüpft. Melden Sie sich mit Ihrem Konto an, ' +
    'dann wird Ihr {provider}-Konto damit verknüpft.',
  idpLinkLater: 'Anmelden und verknüpfen',
  idpLinkOtherWay: 'Kein Passwort? Melden Sie sich anders an (zum Beispiel mit Ihrem Passkey), um zu verknüpfen',
  idpFailedTitle: 'Anmeldung fehlgeschlagen',
  idpBackToLogin: 'Zurück zur Anmeldung',
  idpRedirecting: 'Weiter',
};
