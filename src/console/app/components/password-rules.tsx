/** @jsxImportSource react */
import { useQuery } from '@connectrpc/connect-query';
import { SettingsService } from '../../../../gen/portcullis/settings/v2/settings_service_pb';

/** The rules' words, in the console's languages (the page's `lang` picks one, as for the other words). */
const WORDS = {
  en: {
    intro: 'The password needs',
    minLength: 'at least {n} characters',
    uppercase: 'an upper-case letter',
    lowercase: 'a lower-case letter',
    number: 'a digit',
    symbol: 'a symbol',
    notCommon: 'It must not be one of the most commonly used passwords, even with digits or symbols added at the end.',
  },
  de: {
    intro: 'Das Passwort braucht',
    minLength: 'mindestens {n} Zeichen',
    uppercase: 'einen Großbuchstaben',
    lowercase: 'einen Kleinbuchstaben',
    number: 'eine Ziffer',
    symbol: 'ein Sonderzeichen',
    notCommon:
      'Es darf keines der am häufigsten verwendeten Passwörter sein, auch nicht mit angehängten Ziffern oder Zeichen.',
  },
};

/**
 * The rules a new password must meet (GetPasswordComplexitySettings), shown with every new-password
 * field before the user types; a refusal from the server names the rule it broke.
 */
export function PasswordRules() {
  const rules = useQuery(SettingsService.method.getPasswordComplexitySettings, {}).data?.settings;
  if (!rules) return null;
  const w = document.documentElement.lang.startsWith('de') ? WORDS.de : WORDS.en;
  const items = [
    w.minLength.replace('{n}', String(rules.minLength)),
    rules.requiresUppercase && w.uppercase,
    rules.requiresLowercase && w.lowercase,
    rules.requiresNumber && w.number,
    rules.requiresSymbol && w.symbol,
  ].filter((i): i is string => Boolean(i));
  const sentence = `${w.intro} ${items.join(', ')}.`;
  return <>{rules.blocksCommon ? `${sentence} ${w.notCommon}` : sentence}</>;
}
