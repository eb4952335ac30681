/** @jsxImportSource react */
import type { MessageInitShape } from '@bufbuild/protobuf';
import { type FormEvent, useState } from 'react';
import { AutoLinkingOption, type IdentityProvider } from '../../../../gen/portcullis/idp/v2/identity_provider_pb';
import {
  type CreateIdentityProviderRequestSchema,
  IdentityProviderService,
} from '../../../../gen/portcullis/idp/v2/identity_provider_service_pb';
import { DialogActions } from '../components/dialog';
import { Field, fieldError } from '../components/field';
import { CopyValue } from '../components/shown-once';
import { Failure } from '../components/status';
import { TextField } from '../components/text-field';
import { useWords } from '../context';
import type { Words } from '../i18n';
import { useChange } from '../mutations';
import { type ConfigField, configOf, KINDS, type Kind, snake, type Values, valuesOf } from './idp-kinds';

type Config = MessageInitShape<typeof CreateIdentityProviderRequestSchema>['config'];

const OPTION_FLAGS = ['isLinkingAllowed', 'isCreationAllowed', 'isAutoCreation', 'isAutoUpdate'] as const;

function flagLabel(t: Words, flag: (typeof OPTION_FLAGS)[number]): string {
  return {
    isLinkingAllowed: t.idpLinkingAllowed,
    isCreationAllowed: t.idpCreationAllowed,
    isAutoCreation: t.idpAutoCreation,
    isAutoUpdate: t.idpAutoUpdate,
  }[flag];
}

/**
 * A provider of any kind, in a dialog: new for the chosen owner (the kind picked at the top), or an existing one
 * changed (its kind fixed: the API changes a configuration only within its kind). The fields come from KINDS.
 * Write-only fields start empty: the API never returns them, and empty in an update keeps the stored value.
 * A new provider's addresses to register at the provider are shown once it exists.
 */
export function IdpForm(props: { organizationId?: string; existing?: IdentityProvider; onDone: () => void }) {
  const t = useWords();
  const old = props.existing;
  const stored = old?.config.value as Record<string, unknown> | undefined;
  const [kind, setKind] = useState<Kind>(old?.config.case ?? 'genericOidc');
  const [values, setValues] = useState<Values>(() => valuesOf(kind, stored));
  const [form, setForm] = useState({
    name: old?.name ?? '',
    isLinkingAllowed: old?.options?.isLinkingAllowed ?? true,
    isCreationAllowed: old?.options?.isCreationAllowed ?? true,
    isAutoCreation: old?.options?.isAutoCreation ?? false,
    isAutoUpdate: old?.options?.isAutoUpdate ?? false,
    autoLinking: old?.options?.autoLinking ?? AutoLinkingOption.UNSPECIFIED,
    trustVerifiedEmail: old?.options?.trustVerifiedEmail ?? false,
  });
  // only the instance's own providers may trust an upstream's emails (the API refuses it elsewhere)
  const instanceProvider = old ? !old.organizationId : !props.organizationId;
  const [created, setCreated] = useState<{ callbackUrl: string; samlMetadataUrl: string }>();
  const create = useChange(IdentityProviderService.method.createIdentityProvider);
  const update = useChange(IdentityProviderService.method.updateIdentityProvider, props.onDone);
  const change = old ? update : create;
  const pick = (k: Kind) => {
    setKind(k);
    setValues(valuesOf(k));
    setCreated(undefined);
    create.reset();
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const { name, ...flags } = form;
    const options = { ...flags, storeTokens: old?.options?.storeTokens ?? false };
    const config = { case: kind, value: configOf(kind, values, stored) } as Config;
    if (old) update.mutate({ id: old.id, name, options, config });
    else create.mutate({ organizationId: props.organizationId, name, options, config }, { onSuccess: setCreated });
  };
  // the server names a field by its place in the request (generic_oidc.issuer) or alone; match either
  const errorOf = (field: string) =>
    fieldError(change.error, field) ?? fieldError(change.error, `${snake(kind)}.${field}`);
  const fields = KINDS[kind].fields;
  const shown = ['name', ...fields.map((f) => f.proto)].some((f) => errorOf(f));
  const input = (f: ConfigField) => {
    const id = `idp-${f.proto.replaceAll('_', '-')}`;
    const value = values[f.proto];
    const set = (v: string | boolean) => setValues({ ...values, [f.proto]: v });
    const word = t[f.label];
    const label = old && f.writeOnly ? t.idpKeep(word) : f.input === 'list' ? t.idpSpaced(word) : word;
    const error = errorOf(f.proto);
    const described = { 'aria-invalid': error ? true : undefined, 'aria-describedby': error && `${id}-error` };
    if (f.input === 'boolean')
      return (
        <label key={f.proto}>
          <input type="checkbox" checked={value === true} onChange={(e) => set(e.target.checked)} /> {word}
        </label>
      );
    if (f.input === 'select' || f.input === 'textarea')
      return (
        <Field key={f.proto} id={id} label={label} error={error}>
          {f.input === 'select' ? (
            <select id={id} value={String(value)} onChange={(e) => set(e.target.value)} {...described}>
              {f.options?.map(([v, name]) => (
                <option key={v} value={v}>
                  {name}
                </option>
              ))}
            </select>
          ) : (
            <textarea id={id} rows={3} value={String(value)} onChange={(e) => set(e.target.value)} {...described} />
          )}
        </Field>
      );
    return (
      <TextField
        key={f.proto}
        id={id}
        label={label}
        type={{ url: 'url', secret: 'password', number: 'number' }[f.input as string] ?? 'text'}
        autoComplete={f.writeOnly ? 'new-password' : 'off'}
        value={String(value)}
        onChange={set}
        error={error}
      />
    );
  };
  if (created)
    return (
      <div className="dialog-form">
        <p role="status">{t.idpCreated}</p>
        {created.callbackUrl && (
          <p>
            {kind === 'saml' ? t.idpAcs : t.idpCallback}:{' '}
            <CopyValue value={created.callbackUrl} testId="idp-callback" />
          </p>
        )}
        {created.samlMetadataUrl && (
          <p>
            {t.idpSpMetadata}: <CopyValue value={created.samlMetadataUrl} testId="idp-sp-metadata" />
          </p>
        )}
        <div className="actions">
          <button type="button" className="primary" onClick={props.onDone}>
            {t.close}
          </button>
        </div>
      </div>
    );
  return (
    <form className="dialog-form" onSubmit={submit}>
      {!old && (
        <Field id="idp-kind" label={t.kind}>
          <select id="idp-kind" value={kind} onChange={(e) => pick(e.target.value as Kind)}>
            {(Object.keys(KINDS) as Kind[]).map((k) => (
              <option key={k} value={k}>
                {KINDS[k].name}
              </option>
            ))}
          </select>
        </Field>
      )}
      <TextField
        id="idp-name"
        label={t.name}
        value={form.name}
        onChange={(name) => setForm({ ...form, name })}
        error={errorOf('name')}
      />
      {fields.map(input)}
      <fieldset className="role-checks">
        <legend>{t.idpOptions}</legend>
        {OPTION_FLAGS.map((flag) => (
          <label key={flag}>
            <input
              type="checkbox"
              checked={form[flag]}
              onChange={(e) => setForm({ ...form, [flag]: e.target.checked })}
            />{' '}
            {flagLabel(t, flag)}
          </label>
        ))}
        {instanceProvider && (
          <label>
            <input
              type="checkbox"
              checked={form.trustVerifiedEmail}
              onChange={(e) => setForm({ ...form, trustVerifiedEmail: e.target.checked })}
            />{' '}
            {t.idpTrustVerifiedEmail}
          </label>
        )}
      </fieldset>
      <Field id="idp-auto-linking" label={t.idpAutoLinking}>
        <select
          id="idp-auto-linking"
          value={form.autoLinking}
          onChange={(e) => setForm({ ...form, autoLinking: Number(e.target.value) })}
        >
          <option value={AutoLinkingOption.UNSPECIFIED}>{t.idpLinkNone}</option>
          <option value={AutoLinkingOption.EMAIL}>{t.idpLinkEmail}</option>
          <option value={AutoLinkingOption.USERNAME}>{t.idpLinkUsername}</option>
        </select>
      </Field>
      {change.error && !shown && <Failure error={change.error} />}
      <DialogActions onCancel={props.onDone} submit={old ? t.save : t.create} pending={change.isPending} />
    </form>
  );
}
