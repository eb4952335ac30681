/** @jsxImportSource react */
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { useQuery } from '@connectrpc/connect-query';
import { type FormEvent, useState } from 'react';
import {
  AutoLinkingOption,
  type IdentityProvider,
  IdentityProviderType,
} from '../../../../gen/portcullis/idp/v2/identity_provider_pb';
import { IdentityProviderService } from '../../../../gen/portcullis/idp/v2/identity_provider_service_pb';
import { OrganizationService } from '../../../../gen/portcullis/org/v2/org_service_pb';
import { Confirm } from '../components/confirm';
import { DataTable, dateCell } from '../components/data-table';
import { Field, fieldError } from '../components/field';
import { ListBody, useListState } from '../components/listing';
import { Failure } from '../components/status';
import { TextField } from '../components/text-field';
import { useWords } from '../context';
import type { Words } from '../i18n';
import { useChange } from '../mutations';
import { usePermissions } from '../permissions';

const ALL = { pagination: { limit: 1000 } };

/** The API's templates by their product names (names, not words: the same in every language). */
const TEMPLATES: Record<string, string> = {
  genericOidc: 'OpenID Connect',
  genericOauth: 'OAuth 2.0',
  google: 'Google',
  github: 'GitHub',
  githubEnterprise: 'GitHub Enterprise Server',
  gitlab: 'GitLab',
  gitlabSelfHosted: 'GitLab (self-hosted)',
  azureAd: 'Microsoft Entra ID',
  apple: 'Apple',
  saml: 'SAML 2.0',
  ldap: 'LDAP',
};
const PROTOCOLS: Record<number, string> = {
  [IdentityProviderType.OIDC]: 'OIDC',
  [IdentityProviderType.OAUTH]: 'OAuth',
  [IdentityProviderType.SAML]: 'SAML',
  [IdentityProviderType.LDAP]: 'LDAP',
};

const typeName = (p: IdentityProvider) => `${TEMPLATES[p.config.case ?? ''] ?? ''} (${PROTOCOLS[p.type] ?? '?'})`;

/**
 * Identity providers: the instance's, or an organization's with the instance's, with their kind; a generic
 * OpenID Connect provider is created and edited here, every kind can be deleted. Secrets never come back.
 */
export function IdentityProviders() {
  const t = useWords();
  const { can, ready } = usePermissions();
  const list = useListState();
  const orgs = (useQuery(OrganizationService.method.listOrganizations, ALL).data?.organizations ?? []).filter((o) =>
    can('org.read', { orgId: o.id }),
  );
  // '' is the instance: shown to those who may read it, else the first organization
  const [owner, setOwner] = useState<string>();
  const ownerId = owner ?? (can('iam.read') ? '' : (orgs[0]?.id ?? ''));
  const idps = useQuery(IdentityProviderService.method.listIdentityProviders, {
    pagination: list.pagination,
    organizationId: ownerId,
  });
  const [editing, setEditing] = useState<IdentityProvider>();
  const [doomed, setDoomed] = useState<IdentityProvider>();
  const remove = useChange(IdentityProviderService.method.deleteIdentityProvider, () => setDoomed(undefined));
  const orgName = new Map(orgs.map((o) => [o.id, o.name]));
  const mayWrite = (p: { organizationId: string }) =>
    p.organizationId ? can('org.write', { orgId: p.organizationId }) : can('iam.write');
  return (
    // busy until the person's permissions are known: until then no action is offered
    <section aria-labelledby="idps-title" aria-busy={!ready}>
      <h1 id="idps-title">{t.identityProviders}</h1>
      {editing ? (
        <OidcForm key={editing.id} existing={editing} onDone={() => setEditing(undefined)} />
      ) : (
        mayWrite({ organizationId: ownerId }) && <OidcForm key={ownerId} organizationId={ownerId} />
      )}
      <search className="filters">
        <Field id="idp-owner" label={t.providersOf}>
          <select id="idp-owner" value={ownerId} onChange={(e) => list.refilter(setOwner)(e.target.value)}>
            {can('iam.read') && <option value="">{t.instance}</option>}
            {orgs.map((o) => (
              <option key={o.id} value={o.id}>
                {o.name}
              </option>
            ))}
          </select>
        </Field>
      </search>
      {remove.error && <Failure error={remove.error} />}
      <ListBody query={idps} list={list} total={(d) => d.pagination?.totalResult}>
        {(data) => (
          <DataTable
            rows={data.result}
            rowKey={(p) => p.id}
            columns={[
              { header: t.name, cell: (p) => p.name },
              { header: t.kind, cell: typeName },
              { header: t.owner, cell: (p) => (p.organizationId ? (orgName.get(p.organizationId) ?? '') : t.instance) },
              { header: t.state, cell: () => t.active },
              {
                header: t.created,
                cell: (p) => dateCell(p.creationDate && timestampDate(p.creationDate)),
                sort: list.sort,
              },
            ]}
            actions={(p) =>
              mayWrite(p) && (
                <>
                  {p.config.case === 'genericOidc' && (
                    <button type="button" onClick={() => setEditing(p)}>
                      {t.edit}
                    </button>
                  )}
                  <button type="button" className="danger" onClick={() => setDoomed(p)}>
                    {t.delete}
                  </button>
                </>
              )
            }
          />
        )}
      </ListBody>
      {doomed && (
        <Confirm
          question={t.confirmDeleteIdp(doomed.name)}
          action={t.delete}
          onConfirm={() => remove.mutate({ id: doomed.id })}
          onCancel={() => setDoomed(undefined)}
        />
      )}
    </section>
  );
}

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
 * A generic OpenID Connect provider: new for the chosen owner, or an existing one changed. The secret field
 * starts empty: the API never returns it, and an empty secret in an update keeps the stored one.
 */
function OidcForm(props: { organizationId?: string; existing?: IdentityProvider; onDone?: () => void }) {
  const t = useWords();
  const old = props.existing;
  const oldConfig = old?.config.case === 'genericOidc' ? old.config.value : undefined;
  const [form, setForm] = useState({
    name: old?.name ?? '',
    issuer: oldConfig?.issuer ?? '',
    clientId: oldConfig?.clientId ?? '',
    clientSecret: '',
    scopes: oldConfig?.scopes.join(' ') ?? 'openid profile email',
    isLinkingAllowed: old?.options?.isLinkingAllowed ?? true,
    isCreationAllowed: old?.options?.isCreationAllowed ?? true,
    isAutoCreation: old?.options?.isAutoCreation ?? false,
    isAutoUpdate: old?.options?.isAutoUpdate ?? false,
    autoLinking: old?.options?.autoLinking ?? AutoLinkingOption.UNSPECIFIED,
  });
  const [callback, setCallback] = useState<string>();
  const reset = () => setForm({ ...form, name: '', issuer: '', clientId: '', clientSecret: '' });
  const create = useChange(IdentityProviderService.method.createIdentityProvider, reset);
  const update = useChange(IdentityProviderService.method.updateIdentityProvider, props.onDone);
  const change = old ? update : create;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const options = {
      isLinkingAllowed: form.isLinkingAllowed,
      isCreationAllowed: form.isCreationAllowed,
      isAutoCreation: form.isAutoCreation,
      isAutoUpdate: form.isAutoUpdate,
      autoLinking: form.autoLinking,
      storeTokens: old?.options?.storeTokens ?? false,
    };
    const config = {
      case: 'genericOidc' as const,
      value: {
        // what this form does not show is kept as it was
        clientAuthMethod: oldConfig?.clientAuthMethod,
        disablePkce: oldConfig?.disablePkce,
        useUserinfo: oldConfig?.useUserinfo,
        emailVerifiedByProvider: oldConfig?.emailVerifiedByProvider,
        mapping: oldConfig?.mapping,
        issuer: form.issuer,
        clientId: form.clientId,
        clientSecret: form.clientSecret,
        scopes: form.scopes.split(/\s+/).filter(Boolean),
      },
    };
    if (old) update.mutate({ id: old.id, name: form.name, options, config });
    else
      create.mutate(
        { organizationId: props.organizationId, name: form.name, options, config },
        { onSuccess: (r) => setCallback(r.callbackUrl) },
      );
  };
  // the server names fields by their place in the request (generic_oidc.issuer); match either
  const errorOf = (field: string) =>
    fieldError(change.error, field) ?? fieldError(change.error, `generic_oidc.${field}`);
  const text = (name: 'name' | 'issuer' | 'clientId' | 'clientSecret' | 'scopes', label: string, field: string) => (
    <TextField
      id={`idp-${name}`}
      label={label}
      type={name === 'clientSecret' ? 'password' : name === 'issuer' ? 'url' : 'text'}
      autoComplete={name === 'clientSecret' ? 'new-password' : 'off'}
      value={form[name]}
      onChange={(v) => setForm({ ...form, [name]: v })}
      error={errorOf(field)}
    />
  );
  const shown = ['name', 'issuer', 'client_id', 'client_secret', 'scopes'].some((f) => errorOf(f));
  return (
    <form className="inline-form" onSubmit={submit} aria-labelledby="idp-form-title">
      <h2 id="idp-form-title">{old ? t.editIdp(old.name) : t.newOidcIdp}</h2>
      {text('name', t.name, 'name')}
      {text('issuer', t.issuer, 'issuer')}
      {text('clientId', t.clientId, 'client_id')}
      {text('clientSecret', old ? t.clientSecretKeep : t.clientSecret, 'client_secret')}
      {text('scopes', t.scopesSpaced, 'scopes')}
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
      <button type="submit" disabled={change.isPending}>
        {old ? t.save : t.create}
      </button>
      {old && (
        <button type="button" onClick={props.onDone}>
          {t.cancel}
        </button>
      )}
      {change.error && !shown && <Failure error={change.error} />}
      {callback && !old && (
        <p role="status" className="ok">
          {t.idpCallback}: <code>{callback}</code>
        </p>
      )}
    </form>
  );
}
