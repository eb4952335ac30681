/** @jsxImportSource react */
import { useQuery } from '@connectrpc/connect-query';
import { useState } from 'react';
import { AuthenticationMethodType } from '../../../../gen/portcullis/user/v2/authentication_methods_pb';
import { UserService } from '../../../../gen/portcullis/user/v2/user_service_pb';
import { Confirm } from '../components/confirm';
import { fieldError } from '../components/field';
import { Failure } from '../components/status';
import { TextField } from '../components/text-field';
import { useUser, useWords } from '../context';
import { useChange } from '../mutations';

/**
 * The authenticator app: RegisterTOTP answers with the QR code (an SVG data URL) and the key as text;
 * the registration holds once the user enters a first code (VerifyTOTPRegistration).
 */
export function Totp() {
  const t = useWords();
  const { userId } = useUser();
  const methods = useQuery(UserService.method.listAuthenticationMethodTypes, { userId });
  const ready = methods.data?.authMethodTypes.includes(AuthenticationMethodType.TOTP) ?? false;
  const [code, setCode] = useState('');
  const [asking, setAsking] = useState(false);
  const register = useChange(UserService.method.registerTOTP);
  const verify = useChange(UserService.method.verifyTOTPRegistration, () => {
    setCode('');
    register.reset();
  });
  const remove = useChange(UserService.method.removeTOTP, () => setAsking(false));
  const started = register.data;
  const codeError = fieldError(verify.error, 'code');
  return (
    <div className="inline-form" aria-busy={methods.isPending}>
      <h2>{t.authenticatorApp}</h2>
      <p>{ready ? t.totpReady : t.totpNone}</p>
      {ready ? (
        <button type="button" className="danger" onClick={() => setAsking(true)}>
          {t.remove}
        </button>
      ) : (
        !started && (
          <button type="button" onClick={() => register.mutate({ userId })} disabled={register.isPending}>
            {t.setUpTotp}
          </button>
        )
      )}
      {started && !ready && (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            verify.mutate({ userId, code });
          }}
        >
          <p>{t.totpScan}</p>
          <img className="qr" src={started.qrCode} alt={t.totpQr} width={200} height={200} />
          <p>
            {t.totpKey}: <code data-testid="totp-secret">{started.secret}</code>
          </p>
          <TextField
            id="totp-code"
            label={t.code}
            value={code}
            onChange={setCode}
            autoComplete="one-time-code"
            error={codeError}
          />
          <button type="submit" disabled={verify.isPending || !code}>
            {t.verify}
          </button>
          {verify.error && !codeError && <Failure error={verify.error} />}
        </form>
      )}
      {(register.error || remove.error) && <Failure error={register.error ?? remove.error} />}
      {asking && (
        <Confirm
          question={t.confirmRemoveTotp}
          action={t.remove}
          onConfirm={() => remove.mutate({ userId })}
          onCancel={() => setAsking(false)}
        />
      )}
    </div>
  );
}
