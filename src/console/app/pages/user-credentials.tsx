/** @jsxImportSource react */
import { timestampDate, timestampFromDate } from '@bufbuild/protobuf/wkt';
import { useQuery } from '@connectrpc/connect-query';
import { type FormEvent, useState } from 'react';
import { AuthenticationMethodType } from '../../../../gen/portcullis/user/v2/authentication_methods_pb';
import { PasskeyAuthenticatorType } from '../../../../gen/portcullis/user/v2/passkeys_pb';
import { type User, UserState } from '../../../../gen/portcullis/user/v2/user_pb';
import { UserService } from '../../../../gen/portcullis/user/v2/user_service_pb';
import { Confirm } from '../components/confirm';
import { DataTable, dateCell } from '../components/data-table';
import { downloadFile } from '../components/download';
import { Field, fieldError } from '../components/field';
import { Failure } from '../components/status';
import { PasswordRules } from '../components/password-rules';
import { TextField } from '../components/text-field';
import { useWords } from '../context';
import type { Words } from '../i18n';
import { useChange } from '../mutations';
import { usePermissions } from '../permissions';

const when = (d?: Parameters<typeof timestampDate>[0]) => dateCell(d && timestampDate(d));

type Action = 'lock' | 'unlock' | 'deactivate' | 'reactivate' | 'delete';

/** The state changes the users list offers, for this one user; all but unlock and reactivate ask first. */
export function StateActions({ user, go }: { user: User; go: (to: string) => void }) {
  const t = useWords();
  const { can } = usePermissions();
  const [pending, setPending] = useState<Action>();
  const done = () => setPending(undefined);
  const mutations = {
    lock: useChange(UserService.method.lockUser, done),
    unlock: useChange(UserService.method.unlockUser, done),
    deactivate: useChange(UserService.method.deactivateUser, done),
    reactivate: useChange(UserService.method.reactivateUser, done),
    delete: useChange(UserService.method.deleteUser, () => go('users')),
  };
  const scope = { orgId: user.organizationId };
  const offered: Action[] = [];
  if (can('user.write', scope)) {
    if (user.state === UserState.ACTIVE) offered.push('lock', 'deactivate');
    if (user.state === UserState.LOCKED) offered.push('unlock');
    if (user.state === UserState.INACTIVE) offered.push('reactivate');
  }
  if (can('user.delete', scope)) offered.push('delete');
  const failed = Object.values(mutations).find((m) => m.error)?.error;
  const name = user.username;
  const run = (a: Action) => mutations[a].mutate({ userId: user.userId });
  if (offered.length === 0) return null;
  return (
    <div className="row-actions">
      {offered.map((a) => (
        <button
          key={a}
          type="button"
          className={a === 'delete' ? 'danger' : undefined}
          onClick={() => (a === 'unlock' || a === 'reactivate' ? run(a) : setPending(a))}
        >
          {t[a]}
        </button>
      ))}
      {failed && <Failure error={failed} />}
      {pending && (
        <Confirm
          question={t.confirmUser(pending, name)}
          action={t[pending]}
          onConfirm={() => run(pending)}
          onCancel={() => setPending(undefined)}
        />
      )}
    </div>
  );
}

/** A human's email address: set a new one (verified by the administrator, or a code is sent), resend the code. */
export function EmailPart({ user }: { user: User }) {
  const t = useWords();
  const { can } = usePermissions();
  const current = user.type.case === 'human' ? user.type.value.email : undefined;
  const [email, setEmail] = useState(current?.email ?? '');
  const [verified, setVerified] = useState(false);
  const set = useChange(UserService.method.setEmail);
  const resend = useChange(UserService.method.resendEmailCode);
  if (!can('user.write', { orgId: user.organizationId })) return null;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    set.mutate({
      userId: user.userId,
      email,
      verification: verified ? { case: 'isVerified', value: true } : { case: 'sendCode', value: {} },
    });
  };
  const emailError = fieldError(set.error, 'email');
  return (
    <form className="inline-form" onSubmit={submit} aria-labelledby="email-title">
      <h2 id="email-title">{t.email}</h2>
      <TextField id="user-email" label={t.email} type="email" value={email} onChange={setEmail} error={emailError} />
      <label>
        <input type="checkbox" checked={verified} onChange={(e) => setVerified(e.target.checked)} /> {t.markVerified}
      </label>
      <button type="submit" disabled={set.isPending}>
        {t.save}
      </button>
      {current && !current.isVerified && (
        <button
          type="button"
          disabled={resend.isPending}
          onClick={() => resend.mutate({ userId: user.userId, verification: { case: 'sendCode', value: {} } })}
        >
          {t.resendCode}
        </button>
      )}
      {(set.isSuccess || resend.isSuccess) && (
        <p role="status" className="ok">
          {t.saved}
        </p>
      )}
      {set.error && !emailError && <Failure error={set.error} />}
      {resend.error && <Failure error={resend.error} />}
    </form>
  );
}

/** A human's phone number: set (an administrator may mark it verified; the API sends no code here). */
export function PhonePart({ user }: { user: User }) {
  const t = useWords();
  const { can } = usePermissions();
  const current = user.type.case === 'human' ? user.type.value.phone : undefined;
  const [phone, setPhone] = useState(current?.phone ?? '');
  const [verified, setVerified] = useState(false);
  const update = useChange(UserService.method.updateUser);
  if (!can('user.write', { orgId: user.organizationId })) return null;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    update.mutate({
      userId: user.userId,
      userType: {
        case: 'human',
        value: { phone: { phone, verification: verified ? { case: 'isVerified', value: true } : { case: undefined } } },
      },
    });
  };
  const phoneError = fieldError(update.error, 'human.phone.phone');
  return (
    <form className="inline-form" onSubmit={submit} aria-labelledby="phone-title">
      <h2 id="phone-title">{t.phone}</h2>
      <TextField id="user-phone" label={t.phone} type="tel" value={phone} onChange={setPhone} error={phoneError} />
      <label>
        <input type="checkbox" checked={verified} onChange={(e) => setVerified(e.target.checked)} /> {t.markVerified}
      </label>
      <button type="submit" disabled={update.isPending}>
        {t.save}
      </button>
      {current?.phone && <p>{current.isVerified ? t.verified : t.unverified}</p>}
      {update.isSuccess && (
        <p role="status" className="ok">
          {t.saved}
        </p>
      )}
      {update.error && !phoneError && <Failure error={update.error} />}
    </form>
  );
}

/** A human's password: send a reset link, or set one that must be changed at the next sign-in. */
export function PasswordPart({ user }: { user: User }) {
  const t = useWords();
  const { can } = usePermissions();
  const [password, setPassword] = useState('');
  const reset = useChange(UserService.method.passwordReset);
  const invite = useChange(UserService.method.createInviteCode);
  const set = useChange(UserService.method.setPassword, () => setPassword(''));
  if (!can('user.credential.write', { orgId: user.organizationId })) return null;
  // an invitation mails a code with which the person chooses the first password themselves
  const mayInvite = user.type.case === 'human' && can('user.write', { orgId: user.organizationId });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    set.mutate({ userId: user.userId, newPassword: { password, changeRequired: true } });
  };
  const passwordError = fieldError(set.error, 'new_password.password') ?? fieldError(set.error, 'password');
  return (
    <form className="inline-form" onSubmit={submit} aria-labelledby="password-title">
      <h2 id="password-title">{t.password}</h2>
      <TextField
        id="user-password"
        label={t.initialPassword}
        type="password"
        autoComplete="new-password"
        value={password}
        onChange={setPassword}
        error={passwordError}
        hint={<PasswordRules />}
      />
      <button type="submit" disabled={set.isPending}>
        {t.setPassword}
      </button>
      <button
        type="button"
        disabled={reset.isPending}
        onClick={() => reset.mutate({ userId: user.userId, medium: { case: 'sendLink', value: {} } })}
      >
        {t.sendReset}
      </button>
      {mayInvite && (
        <button
          type="button"
          disabled={invite.isPending}
          onClick={() => invite.mutate({ userId: user.userId, verification: { case: 'sendCode', value: {} } })}
        >
          {t.inviteByEmail}
        </button>
      )}
      {(set.isSuccess || reset.isSuccess || invite.isSuccess) && (
        <p role="status" className="ok">
          {t.saved}
        </p>
      )}
      {set.error && !passwordError && <Failure error={set.error} />}
      {reset.error && <Failure error={reset.error} />}
      {invite.error && <Failure error={invite.error} />}
    </form>
  );
}

type Factor = { id: string; kind: AuthenticationMethodType; name: string; created?: string };

function factorName(t: Words, k: AuthenticationMethodType): string {
  const names: Partial<Record<AuthenticationMethodType, string>> = {
    [AuthenticationMethodType.PASSKEY]: t.passkey,
    [AuthenticationMethodType.U2F]: t.securityKey,
    [AuthenticationMethodType.TOTP]: t.totp,
    [AuthenticationMethodType.OTP_EMAIL]: t.otpEmail,
    [AuthenticationMethodType.OTP_SMS]: t.otpSms,
    [AuthenticationMethodType.RECOVERY_CODES]: t.recoveryCodes,
  };
  return names[k] ?? String(k);
}

/** The user's authentication factors as the API lists them (passkeys one by one); removing one asks first. */
export function FactorsPart({ user }: { user: User }) {
  const t = useWords();
  const { can } = usePermissions();
  const allowed = can('user.credential.write', { orgId: user.organizationId });
  const [doomed, setDoomed] = useState<Factor>();
  const types = useQuery(UserService.method.listAuthenticationMethodTypes, { userId: user.userId });
  const passkeys = useQuery(UserService.method.listPasskeys, { userId: user.userId });
  const done = () => setDoomed(undefined);
  const removes = {
    passkey: useChange(UserService.method.removePasskey, done),
    totp: useChange(UserService.method.removeTOTP, done),
    email: useChange(UserService.method.removeOTPEmail, done),
    sms: useChange(UserService.method.removeOTPSMS, done),
    codes: useChange(UserService.method.removeRecoveryCodes, done),
  };
  const failed = types.error ?? passkeys.error ?? Object.values(removes).find((m) => m.error)?.error;
  const single = (types.data?.authMethodTypes ?? []).filter(
    (k) =>
      k !== AuthenticationMethodType.PASSWORD &&
      k !== AuthenticationMethodType.PASSKEY &&
      k !== AuthenticationMethodType.U2F,
  );
  const factors: Factor[] = [
    ...(passkeys.data?.passkeys ?? []).map((p) => ({
      id: p.id,
      // ListPasskeys holds security keys (U2F-style second factors) too
      kind:
        p.authenticator === PasskeyAuthenticatorType.SECURITY_KEY
          ? AuthenticationMethodType.U2F
          : AuthenticationMethodType.PASSKEY,
      name: p.name,
      created: when(p.creationDate),
    })),
    ...single.map((kind) => ({ id: String(kind), kind, name: '' })),
  ];
  const remove = (f: Factor) => {
    const userId = user.userId;
    if (f.kind === AuthenticationMethodType.PASSKEY || f.kind === AuthenticationMethodType.U2F)
      removes.passkey.mutate({ userId, passkeyId: f.id });
    else if (f.kind === AuthenticationMethodType.TOTP) removes.totp.mutate({ userId });
    else if (f.kind === AuthenticationMethodType.OTP_EMAIL) removes.email.mutate({ userId });
    else if (f.kind === AuthenticationMethodType.OTP_SMS) removes.sms.mutate({ userId });
    else removes.codes.mutate({ userId });
  };
  return (
    <section aria-labelledby="factors-title">
      <h2 id="factors-title">{t.factors}</h2>
      {failed && <Failure error={failed} />}
      {types.data &&
        passkeys.data &&
        (factors.length === 0 ? (
          <p>{t.none}</p>
        ) : (
          <DataTable
            rows={factors}
            rowKey={(f) => f.id}
            columns={[
              { header: t.kind, cell: (f) => factorName(t, f.kind) },
              { header: t.name, cell: (f) => f.name },
              { header: t.created, cell: (f) => f.created ?? '' },
            ]}
            actions={(f) =>
              allowed && (
                <button type="button" className="danger" onClick={() => setDoomed(f)}>
                  {t.remove}
                </button>
              )
            }
          />
        ))}
      {doomed && (
        <Confirm
          question={t.confirmRemoveFactor(factorName(t, doomed.kind))}
          action={t.remove}
          onConfirm={() => remove(doomed)}
          onCancel={() => setDoomed(undefined)}
        />
      )}
    </section>
  );
}

/** A machine user's keys: a new key's file is downloaded once (the server keeps only the public half). */
export function KeysPart({ user }: { user: User }) {
  const t = useWords();
  const { can } = usePermissions();
  const allowed = can('user.credential.write', { orgId: user.organizationId });
  const [expiry, setExpiry] = useState('');
  const [doomed, setDoomed] = useState<string>();
  const keys = useQuery(UserService.method.listKeys, { userId: user.userId });
  const add = useChange(UserService.method.addKey);
  const remove = useChange(UserService.method.removeKey, () => setDoomed(undefined));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    add.mutate(
      {
        userId: user.userId,
        expirationDate: expiry ? timestampFromDate(new Date(`${expiry}T23:59:59Z`)) : undefined,
      },
      {
        onSuccess: (r) => {
          setExpiry('');
          downloadFile(`${r.keyId}.json`, r.keyContent as BlobPart);
        },
      },
    );
  };
  const expiryError = fieldError(add.error, 'expiration_date');
  return (
    <section aria-labelledby="keys-title">
      <h2 id="keys-title">{t.keys}</h2>
      {allowed && (
        <form className="inline-form" onSubmit={submit} aria-label={t.newKey}>
          <Field id="key-expiry" label={t.expires} error={expiryError}>
            <input id="key-expiry" type="date" value={expiry} onChange={(e) => setExpiry(e.target.value)} />
          </Field>
          <button type="submit" disabled={add.isPending}>
            {t.newKey}
          </button>
          {add.data && (
            <p role="status" className="ok">
              {t.keyOnce}
            </p>
          )}
          {add.error && !expiryError && <Failure error={add.error} />}
        </form>
      )}
      {(keys.error || remove.error) && <Failure error={keys.error ?? remove.error} />}
      {keys.data && (
        <DataTable
          rows={keys.data.result}
          rowKey={(k) => k.id}
          columns={[
            { header: t.id, cell: (k) => k.id },
            { header: t.created, cell: (k) => when(k.creationDate) },
            { header: t.expires, cell: (k) => (k.expirationDate ? when(k.expirationDate) : t.never) },
          ]}
          actions={(k) =>
            allowed && (
              <button type="button" className="danger" onClick={() => setDoomed(k.id)}>
                {t.remove}
              </button>
            )
          }
        />
      )}
      {doomed && (
        <Confirm
          question={t.confirmRemoveKey(doomed)}
          action={t.remove}
          onConfirm={() => remove.mutate({ userId: user.userId, keyId: doomed })}
          onCancel={() => setDoomed(undefined)}
        />
      )}
    </section>
  );
}

/** A machine user's client secret: generated and shown once; removing it asks first. */
export function SecretPart({ user }: { user: User }) {
  const t = useWords();
  const { can } = usePermissions();
  const [asking, setAsking] = useState(false);
  const add = useChange(UserService.method.addSecret);
  const remove = useChange(UserService.method.removeSecret, () => setAsking(false));
  if (user.type.case !== 'machine') return null;
  const allowed = can('user.credential.write', { orgId: user.organizationId });
  const has = user.type.value.hasSecret;
  return (
    <section aria-labelledby="secret-title">
      <h2 id="secret-title">{t.clientSecret}</h2>
      <p>{has ? t.secretSet : t.secretNone}</p>
      {allowed && (
        <div className="row-actions">
          <button type="button" disabled={add.isPending} onClick={() => add.mutate({ userId: user.userId })}>
            {t.generateSecret}
          </button>
          {has && (
            <button type="button" className="danger" onClick={() => setAsking(true)}>
              {t.remove}
            </button>
          )}
        </div>
      )}
      {add.data && (
        <p role="status" className="ok">
          {t.credentialsOnce} {t.clientId}: <code>{add.data.clientId}</code> {t.clientSecret}:{' '}
          <code>{add.data.clientSecret}</code>
        </p>
      )}
      {(add.error || remove.error) && <Failure error={add.error ?? remove.error} />}
      {asking && (
        <Confirm
          question={t.confirmRemoveSecret}
          action={t.remove}
          onConfirm={() => remove.mutate({ userId: user.userId })}
          onCancel={() => setAsking(false)}
        />
      )}
    </section>
  );
}
