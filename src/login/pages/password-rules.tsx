import { DomainError } from '../../domain/errors';
import type { PasswordComplexity } from '../../domain/instance/password-complexity';
import type { Messages } from '../i18n';

/** The id the new-password fields name in aria-describedby. */
export const PASSWORD_RULES_ID = 'password-rules';

/** The rules a new password must meet, shown before the user types (read to screen readers with the field). */
export function PasswordRules(p: { t: Messages; rules: PasswordComplexity }) {
  const { t, rules } = p;
  const items = [
    t.ruleMinLength.replace('{n}', String(rules.minLength)),
    rules.requiresUppercase && t.ruleUppercase,
    rules.requiresLowercase && t.ruleLowercase,
    rules.requiresNumber && t.ruleNumber,
    rules.requiresSymbol && t.ruleSymbol,
    rules.blocksCommon && t.ruleNotCommon,
  ].filter((i): i is string => Boolean(i));
  return (
    <div id={PASSWORD_RULES_ID} class="hint">
      <p>{t.passwordRules}:</p>
      <ul>
        {items.map((i) => (
          <li>{i}</li>
        ))}
      </ul>
    </div>
  );
}

/**
 * What the form says when the policy refuses a new password: the rule it broke, in the user's
 * language where the rule has words of its own, else the server's message (which names the rule).
 */
export function refusalText(err: DomainError, t: Messages): string {
  return err.key === 'Errors.User.PasswordCommon' ? t.passwordCommon : err.message;
}
