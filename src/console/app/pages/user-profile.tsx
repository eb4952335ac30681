/** @jsxImportSource react */
import { type FormEvent, useState } from 'react';
import { Gender, type User } from '../../../../gen/portcullis/user/v2/user_pb';
import { UserService } from '../../../../gen/portcullis/user/v2/user_service_pb';
import { Field, fieldError } from '../components/field';
import { Failure } from '../components/status';
import { TextField } from '../components/text-field';
import { useWords } from '../context';
import { useChange } from '../mutations';
import { usePermissions } from '../permissions';

/** Edits a human's names, language and gender, or a machine's name and description (with `user.write`). */
export function ProfileForm({ user }: { user: User }) {
  const t = useWords();
  const { can } = usePermissions();
  const human = user.type.case === 'human' ? user.type.value.profile : undefined;
  const machine = user.type.case === 'machine' ? user.type.value : undefined;
  const [form, setForm] = useState({
    givenName: human?.givenName ?? '',
    familyName: human?.familyName ?? '',
    displayName: human?.displayName ?? '',
    nickName: human?.nickName ?? '',
    preferredLanguage: human?.preferredLanguage ?? '',
    gender: human?.gender ?? Gender.UNSPECIFIED,
    name: machine?.name ?? '',
    description: machine?.description ?? '',
  });
  const update = useChange(UserService.method.updateUser);
  if (!can('user.write', { orgId: user.organizationId }) || !user.type.case) return null;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const { givenName, familyName, displayName, nickName, preferredLanguage, gender, name, description } = form;
    update.mutate({
      userId: user.userId,
      userType: human
        ? {
            case: 'human',
            value: { profile: { givenName, familyName, displayName, nickName, preferredLanguage, gender } },
          }
        : { case: 'machine', value: { name, description } },
    });
  };
  // the server names fields by their place in the request (human.profile.given_name); match the leaf
  const errorOf = (field: string) =>
    fieldError(update.error, `human.profile.${field}`) ?? fieldError(update.error, `machine.${field}`);
  const input = (key: Exclude<keyof typeof form, 'gender'>, label: string, field: string) => (
    <TextField
      id={`profile-${key}`}
      label={label}
      value={form[key]}
      autoComplete="off"
      onChange={(v) => setForm({ ...form, [key]: v })}
      error={errorOf(field)}
    />
  );
  const fields = human
    ? ['given_name', 'family_name', 'display_name', 'nick_name', 'preferred_language']
    : ['name', 'description'];
  const shown = fields.some((f) => errorOf(f));
  return (
    <form className="inline-form" onSubmit={submit} aria-labelledby="profile-title">
      <h2 id="profile-title">{t.profile}</h2>
      {human ? (
        <>
          {input('givenName', t.givenName, 'given_name')}
          {input('familyName', t.familyName, 'family_name')}
          {input('displayName', t.displayName, 'display_name')}
          {input('nickName', t.nickName, 'nick_name')}
          {input('preferredLanguage', t.language, 'preferred_language')}
          <Field id="profile-gender" label={t.gender}>
            <select
              id="profile-gender"
              value={form.gender}
              onChange={(e) => setForm({ ...form, gender: Number(e.target.value) as Gender })}
            >
              <option value={Gender.UNSPECIFIED}>{t.notGiven}</option>
              <option value={Gender.FEMALE}>{t.female}</option>
              <option value={Gender.MALE}>{t.male}</option>
              <option value={Gender.DIVERSE}>{t.diverse}</option>
            </select>
          </Field>
        </>
      ) : (
        <>
          {input('name', t.name, 'name')}
          {input('description', t.description, 'description')}
        </>
      )}
      <button type="submit" disabled={update.isPending}>
        {t.save}
      </button>
      {update.isSuccess && (
        <p role="status" className="ok">
          {t.saved}
        </p>
      )}
      {update.error && !shown && <Failure error={update.error} />}
    </form>
  );
}
