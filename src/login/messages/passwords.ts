/** Strings of the rules a new password must meet, shown beside every new-password field. */
export const passwordsEn = {
  passwordRules: 'Rules for your password',
  ruleMinLength: 'at least {n} characters',
  ruleUppercase: 'an upper-case letter',
  ruleLowercase: 'a lower-case letter',
  ruleNumber: 'a digit',
  ruleSymbol: 'a symbol',
  ruleNotCommon: 'not one of the most commonly used passwords, even with digits or symbols added at the end',
  passwordCommon: 'This password is one of the most commonly used passwords. Please choose another.',
};

export const passwordsDe: typeof passwordsEn = {
  passwordRules: 'Regeln für Ihr Passwort',
  ruleMinLength: 'mindestens {n} Zeichen',
  ruleUppercase: 'ein Großbuchstabe',
  ruleLowercase: 'ein Kleinbuchstabe',
  ruleNumber: 'eine Ziffer',
  ruleSymbol: 'ein Sonderzeichen',
  ruleNotCommon: 'keines der am häufigsten verwendeten Passwörter, auch nicht mit angehängten Ziffern oder Zeichen',
  passwordCommon: 'Dieses Passwort gehört zu den am häufigsten verwendeten. Bitte wählen Sie ein anderes.',
};
