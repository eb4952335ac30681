/** @jsxImportSource react */
import { type FormEvent, useState } from 'react';
import { UserService } from '../../../../gen/portcullis/user/v2/user_service_pb';
import { fieldError } from '../components/field';
import { PasswordRules } from '../components/password-rules';
import { Failure } from '../components/status';
import { TextField } from '../components/text-field';
import { useUser, useWords } from '../context';
import { useChange } from '../mutations';

/** A new password with the current one as proof (SetPassword); the server's policy message at the field. */
export function PasswordForm() {
  const t = useWords();
  const { userId } = useUser();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const change = useChange(UserService.method.setPassword, () => {
    setCurrent('');
    setNext('');
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    change.mutate({
      userId,
      newPassword: { password: next },
      verification: { case: 'currentPassword', value: current },
    });
  };
  const currentError = fieldError(change.error, 'current_password');
  const nextError = fieldError(change.error, 'new_password.password') ?? fieldError(change.error, 'new_password');
  return (
    <form className="inline-form" onSubmit={submit} aria-labelledby="password-title">
      <h2 id="password-title">{t.password}</h2>
      <TextField
        id="password-current"
        label={t.currentPassword}
        type="password"
        value={current}
        onChange={setCurrent}
        autoComplete="current-password"
        error={currentError}
      />
      <TextField
        id="password-new"
        label={t.newPassword}
        type="password"
        value={next}
        onChange={setNext}
        autoComplete="new-password"
        error={nextError}
        hint={<PasswordRules />}
      />
      <button type="submit" disabled={change.isPending || !current || !next}>
        {t.changePassword}
      </button>
      {change.error && !currentError && !nextError && <Failure error={change.error} />}
      {change.isSuccess && (
        <p role="status" className="ok">
          {t.passwordChanged}
        </p>
      )}
    </form>
  );
}
