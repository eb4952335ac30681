/** @jsxImportSource react */
import { useWords } from '../context';
import { Passkeys } from './passkeys';
import { PasswordForm } from './password';
import { Totp } from './totp';

/** Password, authenticator app and passkeys of the signed-in user. */
export function Security() {
  const t = useWords();
  return (
    <section aria-labelledby="security-title">
      <h1 id="security-title">{t.security}</h1>
      <PasswordForm />
      <Totp />
      <Passkeys />
    </section>
  );
}
