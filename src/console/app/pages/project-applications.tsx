/** @jsxImportSource react */
import { useQuery } from '@connectrpc/connect-query';
import { type FormEvent, useState } from 'react';
import {
  type Application,
  OidcApplicationType,
  OidcAuthMethodType,
  OidcGrantType,
  OidcResponseType,
} from '../../../../gen/portcullis/application/v2/application_pb';
import { ApplicationService } from '../../../../gen/portcullis/application/v2/application_service_pb';
import type { Project } from '../../../../gen/portcullis/project/v2/project_service_pb';
import { Confirm } from '../components/confirm';
import { DataTable } from '../components/data-table';
import { Field, fieldError } from '../components/field';
import { Failure, Loading } from '../components/status';
import { TextField } from '../components/text-field';
import { useWords } from '../context';
import { useChange } from '../mutations';
import { usePermissions } from '../permissions';

/** A browser app or a native app cannot keep a secret: they authenticate with PKCE alone. */
const KINDS = [
  { type: OidcApplicationType.WEB, auth: OidcAuthMethodType.BASIC },
  { type: OidcApplicationType.USER_AGENT, auth: OidcAuthMethodType.NONE },
  { type: OidcApplicationType.NATIVE, auth: OidcAuthMethodType.NONE },
];

/** A project's applications: the list, a new OIDC client (its secret shown once), delete behind a question. */
export function ProjectApplications({ project }: { project: Project }) {
  const t = useWords();
  const { can } = usePermissions();
  const scope = { orgId: project.organizationId, projectId: project.id };
  const mayWrite = !project.grantId && can('project.app.write', scope);
  const apps = useQuery(ApplicationService.method.listApplications, {
    pagination: { limit: 1000, asc: true },
    filters: [{ filter: { case: 'projectId', value: project.id } }],
  });
  const [doomed, setDoomed] = useState<Application>();
  const remove = useChange(ApplicationService.method.deleteApplication, () => setDoomed(undefined));
  return (
    <>
      <h2>{t.applications}</h2>
      {mayWrite && <CreateOidcApplication projectId={project.id} />}
      {remove.error && <Failure error={remove.error} />}
      {apps.isPending ? (
        <Loading />
      ) : apps.error ? (
        <Failure error={apps.error} />
      ) : (
        <DataTable
          rows={apps.data.applications}
          rowKey={(a) => a.applicationId}
          columns={[
            { header: t.name, cell: (a) => a.name },
            {
              header: t.clientId,
              cell: (a) => (
                <code>{a.configuration.case === 'saml' ? '' : (a.configuration.value?.clientId ?? '')}</code>
              ),
            },
            { header: t.problems, cell: (a) => a.complianceProblems.map((p) => p.message).join('; ') },
          ]}
          actions={(a) =>
            mayWrite && (
              <button type="button" className="danger" onClick={() => setDoomed(a)}>
                {t.delete}
              </button>
            )
          }
        />
      )}
      {doomed && (
        <Confirm
          question={t.confirmDeleteApp(doomed.name)}
          action={t.delete}
          onConfirm={() => remove.mutate({ applicationId: doomed.applicationId })}
          onCancel={() => setDoomed(undefined)}
        />
      )}
    </>
  );
}

function CreateOidcApplication({ projectId }: { projectId: string }) {
  const t = useWords();
  const [name, setName] = useState('');
  const [kind, setKind] = useState(OidcApplicationType.WEB);
  const [redirects, setRedirects] = useState('');
  const create = useChange(ApplicationService.method.createApplication);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const auth = KINDS.find((k) => k.type === kind)!.auth;
    create.mutate({
      projectId,
      name,
      configuration: {
        case: 'oidc',
        value: {
          redirectUris: redirects
            .split('\n')
            .map((u) => u.trim())
            .filter(Boolean),
          responseTypes: [OidcResponseType.CODE],
          grantTypes: [OidcGrantType.AUTHORIZATION_CODE, OidcGrantType.REFRESH_TOKEN],
          applicationType: kind,
          authMethodType: auth,
        },
      },
    });
  };
  const nameError = fieldError(create.error, 'name');
  const uriError = fieldError(create.error, 'oidc.redirect_uris');
  const created = create.data?.configuration.case === 'oidc' ? create.data.configuration.value : undefined;
  return (
    <form className="inline-form" onSubmit={submit} aria-labelledby="app-create-title">
      <h3 id="app-create-title">{t.newOidcApp}</h3>
      <TextField id="app-name" label={t.name} value={name} onChange={setName} error={nameError} />
      <Field id="app-kind" label={t.appKind}>
        <select id="app-kind" value={kind} onChange={(e) => setKind(Number(e.target.value))}>
          <option value={OidcApplicationType.WEB}>{t.appWeb}</option>
          <option value={OidcApplicationType.USER_AGENT}>{t.appBrowser}</option>
          <option value={OidcApplicationType.NATIVE}>{t.appNative}</option>
        </select>
      </Field>
      <Field id="app-redirects" label={t.redirectUris} error={uriError}>
        <textarea
          id="app-redirects"
          rows={2}
          value={redirects}
          onChange={(e) => setRedirects(e.target.value)}
          aria-invalid={uriError ? true : undefined}
          aria-describedby={uriError ? 'app-redirects-error' : undefined}
        />
      </Field>
      <button type="submit" disabled={create.isPending}>
        {t.create}
      </button>
      {create.error && !nameError && !uriError && <Failure error={create.error} />}
      {created && (
        <div className="credentials" role="status">
          <p>{t.credentialsOnce}</p>
          <dl className="facts">
            <dt>{t.clientId}</dt>
            <dd>
              <code data-testid="client-id">{created.clientId}</code>
            </dd>
            {created.clientSecret && (
              <>
                <dt>{t.clientSecret}</dt>
                <dd>
                  <code data-testid="client-secret">{created.clientSecret}</code>
                </dd>
              </>
            )}
          </dl>
          {created.complianceProblems.length > 0 && (
            <ul className="problems">
              {created.complianceProblems.map((p) => (
                <li key={p.key}>{p.message}</li>
              ))}
            </ul>
          )}
        </div>
      )}
    </form>
  );
}
