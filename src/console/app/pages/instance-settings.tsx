/** @jsxImportSource react */
import { useQuery } from '@connectrpc/connect-query';
import { type FormEvent, type ReactNode, useState } from 'react';
import { type InstanceSettings, InstanceService } from '../../../../gen/portcullis/instance/v2/instance_service_pb';
import {
  type LoginSettings,
  MultiFactorType,
  PasswordlessType,
  SecondFactorType,
} from '../../../../gen/portcullis/settings/v2/login_settings_pb';
import { SettingsService } from '../../../../gen/portcullis/settings/v2/settings_service_pb';
import { Field, fieldError } from '../components/field';
import { Failure, Loading } from '../components/status';
import { TextField } from '../components/text-field';
import { useWords } from '../context';
import type { Words } from '../i18n';
import { useChange } from '../mutations';

/** The server names a field by its proto name (`lockout_max_password_attempts must be …`). */
const snake = (camel: string) => camel.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

type Numbers<T> = { [K in keyof T]: T[K] extends number ? K : never }[keyof T] & string;
type Flags<T> = { [K in keyof T]: T[K] extends boolean ? K : never }[keyof T] & string;

const INSTANCE_NUMBERS = [
  'accessTokenLifetimeSeconds',
  'idTokenLifetimeSeconds',
  'refreshTokenIdleSeconds',
  'refreshTokenAbsoluteSeconds',
  'lockoutMaxPasswordAttempts',
  'lockoutMaxOtpAttempts',
  'passwordMinLength',
] as const satisfies Numbers<InstanceSettings>[];
const INSTANCE_FLAGS = [
  'passwordRequireUppercase',
  'passwordRequireLowercase',
  'passwordRequireNumber',
  'passwordRequireSymbol',
  'passwordBlockCommon',
  'registrationAllowed',
  'loginWithEmailAllowed',
  'impersonationAllowed',
] as const satisfies Flags<InstanceSettings>[];

/** A checkbox with its label beside it. */
function Check(props: { id: string; label: string; checked: boolean; onChange: (v: boolean) => void }) {
  return (
    <div className="check">
      <input id={props.id} type="checkbox" checked={props.checked} onChange={(e) => props.onChange(e.target.checked)} />
      <label htmlFor={props.id}>{props.label}</label>
    </div>
  );
}

/** A group of a form's fields under a heading of its own. */
function Group(props: { legend: string; children: ReactNode }) {
  return (
    <fieldset className="group">
      <legend>{props.legend}</legend>
      {props.children}
    </fieldset>
  );
}

/** Token lifetimes, lockout, password complexity and registration: UpdateInstanceSettings with the form's fields. */
export function InstanceSettingsForm(props: { canWrite: boolean }) {
  const t = useWords();
  const settings = useQuery(InstanceService.method.getInstanceSettings, {});
  return (
    <>
      <h2 id="settings-title">{t.instanceSettings}</h2>
      {settings.isPending ? (
        <Loading />
      ) : settings.error || !settings.data.settings ? (
        <Failure error={settings.error} />
      ) : (
        <InstanceSettingsEditor settings={settings.data.settings} canWrite={props.canWrite} />
      )}
    </>
  );
}

function InstanceSettingsEditor(props: { settings: InstanceSettings; canWrite: boolean }) {
  const t = useWords();
  const initial = () => ({
    numbers: Object.fromEntries(INSTANCE_NUMBERS.map((k) => [k, String(props.settings[k])])),
    flags: Object.fromEntries(INSTANCE_FLAGS.map((k) => [k, props.settings[k]])),
  });
  const [form, setForm] = useState(initial);
  const update = useChange(InstanceService.method.updateInstanceSettings);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    update.mutate({
      ...Object.fromEntries(INSTANCE_NUMBERS.map((k) => [k, Number(form.numbers[k])])),
      ...form.flags,
    });
  };
  const errorOf = (k: string) => fieldError(update.error, snake(k));
  const shown = [...INSTANCE_NUMBERS, ...INSTANCE_FLAGS].some((k) => errorOf(k));
  const number = (k: (typeof INSTANCE_NUMBERS)[number]) => (
    <TextField
      id={`settings-${k}`}
      label={t.settingLabels[k]}
      type="number"
      value={form.numbers[k]}
      onChange={(v) => setForm({ ...form, numbers: { ...form.numbers, [k]: v } })}
      error={errorOf(k)}
    />
  );
  const flag = (k: (typeof INSTANCE_FLAGS)[number]) => (
    <Check
      id={`settings-${k}`}
      label={t.settingLabels[k]}
      checked={form.flags[k]}
      onChange={(v) => setForm({ ...form, flags: { ...form.flags, [k]: v } })}
    />
  );
  return (
    <form className="inline-form" onSubmit={submit} aria-labelledby="settings-title">
      <Group legend={t.tokenLifetimes}>
        {number('accessTokenLifetimeSeconds')}
        {number('idTokenLifetimeSeconds')}
        {number('refreshTokenIdleSeconds')}
        {number('refreshTokenAbsoluteSeconds')}
      </Group>
      <Group legend={t.lockout}>
        {number('lockoutMaxPasswordAttempts')}
        {number('lockoutMaxOtpAttempts')}
      </Group>
      <Group legend={t.passwordComplexity}>
        {number('passwordMinLength')}
        {flag('passwordRequireUppercase')}
        {flag('passwordRequireLowercase')}
        {flag('passwordRequireNumber')}
        {flag('passwordRequireSymbol')}
        {flag('passwordBlockCommon')}
      </Group>
      <Group legend={t.signInAndRegistration}>
        {flag('registrationAllowed')}
        {flag('loginWithEmailAllowed')}
        {flag('impersonationAllowed')}
      </Group>
      {props.canWrite && (
        <button type="submit" disabled={update.isPending}>
          {t.save}
        </button>
      )}
      {update.error && !shown && <Failure error={update.error} />}
      {update.isSuccess && (
        <p role="status" className="ok">
          {t.saved}
        </p>
      )}
    </form>
  );
}

const SECOND_FACTORS = [
  SecondFactorType.TOTP,
  SecondFactorType.U2F,
  SecondFactorType.OTP_EMAIL,
  SecondFactorType.OTP_SMS,
] as const;

function factorName(t: Words, f: SecondFactorType): string {
  return {
    [SecondFactorType.TOTP]: t.factorTotp,
    [SecondFactorType.U2F]: t.factorU2f,
    [SecondFactorType.OTP_EMAIL]: t.factorEmail,
    [SecondFactorType.OTP_SMS]: t.factorSms,
  }[f as 1 | 2 | 3 | 4];
}

/**
 * The instance's default login policy (organizations without their own inherit it): SetDefaultLoginSettings.
 * With `orgId`, an organization's: its own policy (SetOrganizationLoginSettings) or, reset, the instance's.
 */
export function LoginSettingsForm(props: { canWrite: boolean; orgId?: string }) {
  const t = useWords();
  const settings = useQuery(SettingsService.method.getLoginSettings, { organizationId: props.orgId ?? '' });
  const reset = useChange(SettingsService.method.resetOrganizationLoginSettings);
  const { orgId } = props;
  return (
    <>
      <h2 id="login-settings-title">{t.loginPolicy}</h2>
      {orgId && settings.data && (
        <p>
          {settings.data.inherited ? t.inheritsInstancePolicy : t.ownPolicy}{' '}
          {props.canWrite && !settings.data.inherited && (
            <button type="button" disabled={reset.isPending} onClick={() => reset.mutate({ organizationId: orgId })}>
              {t.resetToDefault}
            </button>
          )}
        </p>
      )}
      {reset.error && <Failure error={reset.error} />}
      {settings.isPending ? (
        <Loading />
      ) : settings.error || !settings.data.settings ? (
        <Failure error={settings.error} />
      ) : (
        // a new key after a reset: the form starts again from the policy now in force
        <LoginSettingsEditor
          key={String(settings.data.inherited)}
          settings={settings.data.settings}
          canWrite={props.canWrite}
          orgId={orgId}
        />
      )}
    </>
  );
}

function LoginSettingsEditor(props: { settings: LoginSettings; canWrite: boolean; orgId?: string }) {
  const t = useWords();
  const [form, setForm] = useState(props.settings);
  const setDefault = useChange(SettingsService.method.setDefaultLoginSettings);
  const setOwn = useChange(SettingsService.method.setOrganizationLoginSettings);
  const update = props.orgId ? setOwn : setDefault;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (props.orgId) setOwn.mutate({ organizationId: props.orgId, settings: form });
    else setDefault.mutate({ settings: form });
  };
  const errorOf = (k: string) => fieldError(update.error, k) ?? fieldError(update.error, `settings.${k}`);
  const fields = ['allow_username_password', 'passwordless_type', 'force_mfa', 'second_factors', 'multi_factors'];
  const shown = fields.some((k) => errorOf(k));
  const flag = (k: Flags<LoginSettings>, label: string) => (
    <Check id={`login-${k}`} label={label} checked={form[k]} onChange={(v) => setForm({ ...form, [k]: v })} />
  );
  const toggle = <T,>(list: T[], v: T, on: boolean) => (on ? [...list, v] : list.filter((x) => x !== v));
  const error = (k: string) =>
    errorOf(k) && (
      <p className="field-error" role="alert">
        {errorOf(k)}
      </p>
    );
  return (
    <form className="inline-form" onSubmit={submit} aria-labelledby="login-settings-title">
      <Group legend={t.signInMethods}>
        {flag('allowUsernamePassword', t.allowUsernamePassword)}
        {error('allow_username_password')}
        {flag('allowExternalIdp', t.allowExternalIdp)}
        <Field id="login-passwordless" label={t.passkeys} error={errorOf('passwordless_type')}>
          <select
            id="login-passwordless"
            value={form.passwordlessType}
            onChange={(e) => setForm({ ...form, passwordlessType: Number(e.target.value) })}
          >
            <option value={PasswordlessType.NOT_ALLOWED}>{t.passkeysNotAllowed}</option>
            <option value={PasswordlessType.ALLOWED}>{t.passkeysAllowed}</option>
            <option value={PasswordlessType.REQUIRED}>{t.passkeysRequired}</option>
          </select>
        </Field>
      </Group>
      <Group legend={t.multiFactor}>
        {flag('forceMfa', t.forceMfa)}
        {flag('forceMfaLocalOnly', t.forceMfaLocalOnly)}
        {SECOND_FACTORS.map((f) => (
          <Check
            key={f}
            id={`login-factor-${f}`}
            label={factorName(t, f)}
            checked={form.secondFactors.includes(f)}
            onChange={(on) => setForm({ ...form, secondFactors: toggle(form.secondFactors, f, on) })}
          />
        ))}
        {error('second_factors')}
        <Check
          id="login-multi-factor"
          label={t.passkeyAsFactor}
          checked={form.multiFactors.includes(MultiFactorType.U2F_WITH_VERIFICATION)}
          onChange={(on) =>
            setForm({ ...form, multiFactors: toggle(form.multiFactors, MultiFactorType.U2F_WITH_VERIFICATION, on) })
          }
        />
        {error('multi_factors')}
      </Group>
      {props.canWrite && (
        <button type="submit" disabled={update.isPending}>
          {t.save}
        </button>
      )}
      {update.error && !shown && <Failure error={update.error} />}
      {update.isSuccess && (
        <p role="status" className="ok">
          {t.saved}
        </p>
      )}
    </form>
  );
}
