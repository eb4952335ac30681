/** @jsxImportSource react */
import { useQuery } from '@connectrpc/connect-query';
import { type FormEvent, useState } from 'react';
import type { HumanUser } from '../../../../gen/portcullis/user/v2/user_pb';
import { UserService } from '../../../../gen/portcullis/user/v2/user_service_pb';
import { Field, fieldError } from '../components/field';
import { Failure, Loading } from '../components/status';
import { TextField } from '../components/text-field';
import { useUser, useWords } from '../context';
import { useChange } from '../mutations';

/** Profile, email (verified by a code sent to it) and phone of the signed-in user. */
export function Profile() {
  const t = useWords();
  const { userId } = useUser();
  const me = useQuery(UserService.method.getUserByID, { userId });
  const human = me.data?.user?.type.case === 'human' ? me.data.user.type.value : undefined;
  return (
    <section aria-labelledby="profile-title">
      <h1 id="profile-title">{t.profile}</h1>
      {me.isPending ? (
        <Loading />
      ) : me.error || !human ? (
        <Failure error={me.error} />
      ) : (
        <>
          <ProfileForm human={human} />
          <h2>{t.emailAndPhone}</h2>
          <EmailForm human={human} />
          <PhoneForm human={human} />
        </>
      )}
    </section>
  );
}

function ProfileForm({ human }: { human: HumanUser }) {
  const t = useWords();
  const { userId } = useUser();
  const p = human.profile;
  const [form, setForm] = useState({
    givenName: p?.givenName ?? '',
    familyName: p?.familyName ?? '',
    nickName: p?.nickName ?? '',
    displayName: p?.displayName ?? '',
    preferredLanguage: p?.preferredLanguage ?? '',
  });
  const update = useChange(UserService.method.updateUser);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    update.mutate({ userId, userType: { case: 'human', value: { profile: form } } });
  };
  const errorOf = (field: string) => fieldError(update.error, `human.profile.${field}`);
  const input = (name: keyof typeof form, label: string, field: string) => (
    <TextField
      id={`profile-${name}`}
      label={label}
      value={form[name]}
      onChange={(v) => setForm({ ...form, [name]: v })}
      error={errorOf(field)}
    />
  );
  const fields = ['given_name', 'family_name', 'nick_name', 'display_name', 'preferred_language'];
  const languages = ['en', 'de', form.preferredLanguage].filter((l, i, all) => l && all.indexOf(l) === i);
  return (
    <form className="inline-form" onSubmit={submit} aria-label={t.profile}>
      {input('givenName', t.givenName, 'given_name')}
      {input('familyName', t.familyName, 'family_name')}
      {input('nickName', t.nickName, 'nick_name')}
      {input('displayName', t.displayName, 'display_name')}
      <Field id="profile-language" label={t.preferredLanguage} error={errorOf('preferred_language')}>
        <select
          id="profile-language"
          value={form.preferredLanguage}
          onChange={(e) => setForm({ ...form, preferredLanguage: e.target.value })}
        >
          <option value="" />
          {languages.map((l) => (
            <option key={l} value={l}>
              {new Intl.DisplayNames([l], { type: 'language' }).of(l) ?? l}
            </option>
          ))}
        </select>
      </Field>
      <button type="submit" disabled={update.isPending}>
        {t.save}
      </button>
      {update.error && !fields.some(errorOf) && <Failure error={update.error} />}
      {update.isSuccess && (
        <p role="status" className="ok">
          {t.saved}
        </p>
      )}
    </form>
  );
}

function Verified({ yes }: { yes: boolean }) {
  const t = useWords();
  return <span className="status">({yes ? t.verified : t.notVerified})</span>;
}

/** A new address gets a code by email; the user types it here (VerifyEmail). */
function EmailForm({ human }: { human: HumanUser }) {
  const t = useWords();
  const { userId } = useUser();
  const [email, setEmail] = useState(human.email?.email ?? '');
  const [code, setCode] = useState('');
  const set = useChange(UserService.method.setEmail);
  const resend = useChange(UserService.method.resendEmailCode);
  const verify = useChange(UserService.method.verifyEmail, () => setCode(''));
  const sendCode = { case: 'sendCode' as const, value: {} };
  const unverified = human.email && !human.email.isVerified;
  return (
    <>
      <form
        className="inline-form"
        aria-label={t.changeEmail}
        onSubmit={(e) => {
          e.preventDefault();
          set.mutate({ userId, email, verification: sendCode });
        }}
      >
        <TextField
          id="account-email"
          label={t.email}
          type="email"
          value={email}
          onChange={setEmail}
          autoComplete="email"
          error={fieldError(set.error, 'email')}
        />
        {human.email && <Verified yes={human.email.isVerified} />}
        <button type="submit" disabled={set.isPending || email === human.email?.email}>
          {t.changeEmail}
        </button>
        {set.error && !fieldError(set.error, 'email') && <Failure error={set.error} />}
      </form>
      {unverified && (
        <form
          className="inline-form"
          aria-label={t.verify}
          onSubmit={(e) => {
            e.preventDefault();
            verify.mutate({ userId, verificationCode: code });
          }}
        >
          {set.isSuccess && <p className="status">{t.codeSent}</p>}
          <TextField
            id="account-email-code"
            label={t.verificationCode}
            value={code}
            onChange={setCode}
            autoComplete="one-time-code"
            error={fieldError(verify.error, 'verification_code')}
          />
          <button type="submit" disabled={verify.isPending || !code}>
            {t.verify}
          </button>
          <button type="button" onClick={() => resend.mutate({ userId, verification: sendCode })}>
            {t.sendNewCode}
          </button>
          {verify.error && !fieldError(verify.error, 'verification_code') && <Failure error={verify.error} />}
        </form>
      )}
    </>
  );
}

/**
 * The phone number, through UpdateUser. The API has no self-service phone verification yet, so a
 * number the user sets stays unverified until an administrator marks it.
 */
function PhoneForm({ human }: { human: HumanUser }) {
  const t = useWords();
  const { userId } = useUser();
  const [phone, setPhone] = useState(human.phone?.phone ?? '');
  const update = useChange(UserService.method.updateUser);
  const error = fieldError(update.error, 'human.phone.phone');
  return (
    <form
      className="inline-form"
      aria-label={t.changePhone}
      onSubmit={(e) => {
        e.preventDefault();
        update.mutate({ userId, userType: { case: 'human', value: { phone: { phone } } } });
      }}
    >
      <TextField
        id="account-phone"
        label={t.phone}
        type="tel"
        value={phone}
        onChange={setPhone}
        autoComplete="tel"
        error={error}
      />
      {human.phone?.phone && <Verified yes={human.phone.isVerified} />}
      <button type="submit" disabled={update.isPending || !phone || phone === human.phone?.phone}>
        {t.changePhone}
      </button>
      {update.error && !error && <Failure error={update.error} />}
    </form>
  );
}
