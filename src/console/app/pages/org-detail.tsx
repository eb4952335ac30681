/** @jsxImportSource react */
import { useQuery } from '@connectrpc/connect-query';
import { type FormEvent, useState } from 'react';
import {
  DomainValidationType,
  type Organization,
  OrganizationService,
} from '../../../../gen/portcullis/org/v2/org_service_pb';
import { Confirm } from '../components/confirm';
import { DataTable } from '../components/data-table';
import { Field, fieldError } from '../components/field';
import { MetadataPart } from '../components/metadata';
import { Failure, Loading } from '../components/status';
import { TextField } from '../components/text-field';
import { CopyValue } from '../components/shown-once';
import { useWords } from '../context';
import type { Words } from '../i18n';
import { useChange } from '../mutations';
import { usePermissions } from '../permissions';
import { LoginSettingsForm } from './instance-settings';

/**
 * One organization: its name, domains, metadata and login policy overrides. Changes are offered with
 * `org.write` on it (the domain policy: `iam.policy.write` on the instance); read-only otherwise.
 */
export function OrganizationDetail({ orgId, go }: { orgId: string; go: (to: string) => void }) {
  const t = useWords();
  const { can, ready } = usePermissions();
  const got = useQuery(OrganizationService.method.getOrganization, { organizationId: orgId });
  if (got.error) return <Failure error={got.error} />;
  const org = got.data?.organization;
  if (!org) return <Loading />;
  const allowed = can('org.write', { orgId });
  return (
    <section aria-labelledby="org-title" aria-busy={!ready}>
      <p>
        <a
          href="/ui/console/organizations"
          onClick={(e) => {
            e.preventDefault();
            go('organizations');
          }}
        >
          ← {t.organizations}
        </a>
      </p>
      <h1 id="org-title">{org.name}</h1>
      <dl className="facts">
        <dt>{t.organizationId}</dt>
        <dd>
          <CopyValue value={org.id} testId="org-id" name={t.organizationId} />
        </dd>
        <dt>{t.primaryDomain}</dt>
        <dd>{org.primaryDomain}</dd>
      </dl>
      {allowed && <Rename org={org} />}
      <Domains org={org} allowed={allowed} />
      <OrgMetadata orgId={orgId} allowed={allowed} />
      <LoginPolicy org={org} allowed={allowed} />
      <LoginSettingsForm canWrite={allowed} orgId={orgId} />
    </section>
  );
}

function Rename({ org }: { org: Organization }) {
  const t = useWords();
  const [name, setName] = useState(org.name);
  const rename = useChange(OrganizationService.method.updateOrganization);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    rename.mutate({ organizationId: org.id, name });
  };
  const nameError = fieldError(rename.error, 'name');
  return (
    <form className="inline-form" onSubmit={submit} aria-label={t.rename}>
      <TextField id="org-name" label={t.name} value={name} onChange={setName} error={nameError} />
      <button type="submit" disabled={rename.isPending}>
        {t.rename}
      </button>
      {rename.error && !nameError && <Failure error={rename.error} />}
    </form>
  );
}

/** Domains: add, verify, make a verified one primary (login names follow it), remove (confirmed). */
function Domains({ org, allowed }: { org: Organization; allowed: boolean }) {
  const t = useWords();
  const [domain, setDomain] = useState('');
  const [doomed, setDoomed] = useState<string>();
  const [validating, setValidating] = useState<string>();
  const domains = useQuery(OrganizationService.method.listOrganizationDomains, { organizationId: org.id });
  const add = useChange(OrganizationService.method.addOrganizationDomain, () => setDomain(''));
  const primary = useChange(OrganizationService.method.setPrimaryOrganizationDomain);
  const remove = useChange(OrganizationService.method.deleteOrganizationDomain, () => setDoomed(undefined));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    add.mutate({ organizationId: org.id, domain });
  };
  const domainError = fieldError(add.error, 'domain');
  const failed = domains.error ?? primary.error ?? remove.error;
  return (
    <section aria-labelledby="domains-title">
      <h2 id="domains-title">{t.domains}</h2>
      {allowed && (
        <form className="inline-form" onSubmit={submit} aria-label={t.newDomain}>
          <TextField id="domain-name" label={t.domain} value={domain} onChange={setDomain} error={domainError} />
          <button type="submit" disabled={add.isPending}>
            {t.create}
          </button>
          {add.error && !domainError && <Failure error={add.error} />}
        </form>
      )}
      {failed && <Failure error={failed} />}
      {domains.data && (
        <DataTable
          rows={domains.data.domains}
          rowKey={(d) => d.domain}
          columns={[
            { header: t.domain, cell: (d) => d.domain },
            { header: t.primary, cell: (d) => (d.isPrimary ? t.yes : '') },
            { header: t.verified, cell: (d) => (d.isVerified ? t.yes : t.no) },
          ]}
          actions={(d) =>
            allowed && (
              <>
                {!d.isVerified && (
                  <button type="button" onClick={() => setValidating(d.domain)}>
                    {t.verify}
                  </button>
                )}
                {/* only a verified domain can be primary */}
                {!d.isPrimary && d.isVerified && (
                  <button type="button" onClick={() => primary.mutate({ organizationId: org.id, domain: d.domain })}>
                    {t.setPrimary}
                  </button>
                )}
                {!d.isGenerated && !d.isPrimary && (
                  <button type="button" className="danger" onClick={() => setDoomed(d.domain)}>
                    {t.remove}
                  </button>
                )}
              </>
            )
          }
        />
      )}
      {validating && <DomainValidation orgId={org.id} domain={validating} key={validating} />}
      {doomed && (
        <Confirm
          question={t.confirmRemoveDomain(doomed)}
          action={t.remove}
          onConfirm={() => remove.mutate({ organizationId: org.id, domain: doomed })}
          onCancel={() => setDoomed(undefined)}
        />
      )}
    </section>
  );
}

/**
 * Proving control of a domain: the server issues a token for a DNS TXT record; "verify" asks the server
 * to look it up and shows its answer (what it found when the token is not there yet).
 */
function DomainValidation({ orgId, domain }: { orgId: string; domain: string }) {
  const t = useWords();
  const generate = useChange(OrganizationService.method.generateOrganizationDomainValidation);
  const verify = useChange(OrganizationService.method.verifyOrganizationDomain);
  return (
    <section aria-labelledby="validation-title">
      <h3 id="validation-title">{t.verificationOf(domain)}</h3>
      <div className="row-actions">
        <button
          type="button"
          disabled={generate.isPending}
          onClick={() => generate.mutate({ organizationId: orgId, domain, type: DomainValidationType.DNS })}
        >
          {t.generateToken}
        </button>
        <button
          type="button"
          disabled={verify.isPending}
          onClick={() => verify.mutate({ organizationId: orgId, domain })}
        >
          {t.verify}
        </button>
      </div>
      {generate.data && (
        <dl className="facts">
          <dt>{t.txtRecord}</dt>
          <dd>
            <code>{generate.data.url}</code>
          </dd>
          <dt>{t.token}</dt>
          <dd>
            <code>{generate.data.token}</code>
          </dd>
        </dl>
      )}
      {generate.error && <Failure error={generate.error} />}
      {verify.error && <Failure error={verify.error} />}
      {verify.isSuccess && (
        <p role="status" className="ok">
          {t.domainVerified}
        </p>
      )}
    </section>
  );
}

function OrgMetadata({ orgId, allowed }: { orgId: string; allowed: boolean }) {
  const list = useQuery(OrganizationService.method.listOrganizationMetadata, { organizationId: orgId });
  const set = useChange(OrganizationService.method.setOrganizationMetadata);
  const remove = useChange(OrganizationService.method.deleteOrganizationMetadata);
  return (
    <MetadataPart
      id="org-metadata"
      entries={list.data?.metadata}
      error={list.error}
      allowed={allowed}
      setError={set.error}
      removeError={remove.error}
      onSet={(key, value) => set.mutate({ organizationId: orgId, metadata: [{ key, value }] })}
      onRemove={(key) => remove.mutate({ organizationId: orgId, keys: [key] })}
    />
  );
}

type Choice = 'inherit' | 'yes' | 'no';
const choiceOf = (v: boolean | undefined): Choice => (v === undefined ? 'inherit' : v ? 'yes' : 'no');
const overrideOf = (c: Choice) => (c === 'inherit' ? undefined : c === 'yes');
type PolicyKey = 'allowRegistration' | 'loginWithEmailAllowed' | 'userLoginMustBeDomain';

function policyLabel(t: Words, key: PolicyKey): string {
  return key === 'allowRegistration'
    ? t.allowRegistration
    : key === 'loginWithEmailAllowed'
      ? t.loginWithEmail
      : t.loginMustBeDomain;
}

/**
 * The organization's login policy overrides: each yes, no, or the instance default. Saving sends the
 * whole policy (the API's shape); "instance default" everywhere resets the overrides.
 */
function LoginPolicy({ org, allowed }: { org: Organization; allowed: boolean }) {
  const t = useWords();
  const { can } = usePermissions();
  const initial = {
    allowRegistration: choiceOf(org.allowRegistration),
    loginWithEmailAllowed: choiceOf(org.loginWithEmailAllowed),
    userLoginMustBeDomain: choiceOf(org.userLoginMustBeDomain),
  };
  const [policy, setPolicy] = useState(initial);
  const save = useChange(OrganizationService.method.setOrganizationLoginPolicy);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate({
      organizationId: org.id,
      allowRegistration: overrideOf(policy.allowRegistration),
      loginWithEmailAllowed: overrideOf(policy.loginWithEmailAllowed),
      userLoginMustBeDomain: overrideOf(policy.userLoginMustBeDomain),
    });
  };
  // the domain policy reaches across the instance: it needs iam.policy.write there
  const editable = (key: PolicyKey) => allowed && (key !== 'userLoginMustBeDomain' || can('iam.policy.write'));
  const keys: PolicyKey[] = ['allowRegistration', 'loginWithEmailAllowed', 'userLoginMustBeDomain'];
  return (
    <form className="inline-form" onSubmit={submit} aria-labelledby="policy-title">
      <h2 id="policy-title">{t.registrationAndLoginNames}</h2>
      {keys.map((key) => (
        <Field key={key} id={`policy-${key}`} label={policyLabel(t, key)}>
          <select
            id={`policy-${key}`}
            value={policy[key]}
            disabled={!editable(key)}
            onChange={(e) => setPolicy({ ...policy, [key]: e.target.value as Choice })}
          >
            <option value="inherit">{t.instanceDefault}</option>
            <option value="yes">{t.yes}</option>
            <option value="no">{t.no}</option>
          </select>
        </Field>
      ))}
      {allowed && (
        <>
          <button type="submit" disabled={save.isPending}>
            {t.save}
          </button>
          <button
            type="button"
            disabled={save.isPending}
            onClick={() => {
              const reset = { ...policy };
              for (const key of keys) if (editable(key)) reset[key] = 'inherit';
              setPolicy(reset);
            }}
          >
            {t.resetToDefault}
          </button>
        </>
      )}
      {save.error && <Failure error={save.error} />}
    </form>
  );
}
