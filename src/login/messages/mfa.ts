/** The second-factor chooser and the set-up chooser (src/login/steps/mfa.tsx, mfa-setup.tsx). */
export const mfaEn = {
  mfaTitle: 'Confirm it is you',
  mfaText: 'Choose how you want to confirm your sign-in.',
  mfaTotp: 'Code from your authenticator app',
  mfaWebAuthN: 'Security key or passkey',
  mfaOtpEmail: 'Code sent by email',
  mfaOtpSms: 'Code sent by SMS',
  mfaRecoveryCode: 'A recovery code',
  mfaSetupTitle: 'Set up a second factor',
  mfaSetupText: 'Your organization requires a second factor. Choose one to set up now.',
  mfaSetupTotp: 'Authenticator app',
  mfaSetupPasskey: 'Passkey or security key',
  mfaSetupOtpEmail: 'Codes by email',
  mfaSetupOtpSms: 'Codes by SMS',
  mfaSetupSkip: 'Skip for now',
};

export const mfaDe: typeof mfaEn = {
  mfaTitle: 'Bestätigen Sie Ihre Anmeldung',
  mfaText: 'Wählen Sie, wie Sie Ihre Anmeldung bestätigen möchten.',
  mfaTotp: 'Code aus Ihrer Authenticator-App',
  mfaWebAuthN: 'Sicherheitsschlüssel oder Passkey',
  mfaOtpEmail: 'Code per E-Mail',
  mfaOtpSms: 'Code per SMS',
  mfaRecoveryCode: 'Ein Wiederherstellungscode',
  mfaSetupTitle: 'Zweiten Faktor einrichten',
  mfaSetupText: 'Ihre Organisation verlangt einen zweiten Faktor. Wählen Sie einen aus, um ihn jetzt einzurichten.',
  mfaSetupTotp: 'Authenticator-App',
  mfaSetupPasskey: 'Passkey oder Sicherheitsschlüssel',
  mfaSetupOtpEmail: 'Codes per E-Mail',
  mfaSetupOtpSms: 'Codes per SMS',
  mfaSetupSkip: 'Später einrichten',
};
