/** @jsxImportSource react */
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { useQuery } from '@connectrpc/connect-query';
import { useState } from 'react';
import {
  ApiAuthMethodType,
  type Application,
  ApplicationState,
  OidcAuthMethodType,
  type OidcConfiguration,
} from '../../../../gen/portcullis/application/v2/application_pb';
import { ApplicationService } from '../../../../gen/portcullis/application/v2/application_service_pb';
import { Confirm } from '../components/confirm';
import { dateCell } from '../components/data-table';
import { CopyBlock, CopyValue, ShownOnce } from '../components/shown-once';
import { Tabs } from '../components/tabs';
import { Failure, Loading } from '../components/status';
import { openidClientSnippet, type SnippetAuth } from '../app-snippet';
import { useIssuer, useWords } from '../context';
import { useChange } from '../mutations';
import { usePermissions } from '../permissions';
import { deactivateQuestion, mayDelete } from '../system-app';
import { ApplicationKeys } from './application-keys';
import { OidcSettings } from './oidc-settings';
import { ApiSettings, SamlSettings } from './other-settings';

type Doomed = 'secret' | 'deactivate' | 'reactivate' | 'delete';

/**
 * One application in tabs: its overview (what it is, its credentials beside the issuer and discovery URL,
 * code that connects to it, its state), its redirects and settings, its keys. The tab is part of the
 * address. Whoever lacks project.app.write on the project sees all of it read-only; an application the
 * caller may not read is the server's refusal, never data.
 */
export function ApplicationDetail(props: {
  projectId: string;
  applicationId: string;
  tab?: string;
  go: (to: string) => void;
}) {
  const t = useWords();
  const { can, ready } = usePermissions();
  const got = useQuery(ApplicationService.method.getApplication, { applicationId: props.applicationId });
  const [doomed, setDoomed] = useState<Doomed>();
  const back = `projects/${props.projectId}`;
  const secret = useChange(ApplicationService.method.generateClientSecret, () => setDoomed(undefined));
  const deactivate = useChange(ApplicationService.method.deactivateApplication, () => setDoomed(undefined));
  const reactivate = useChange(ApplicationService.method.reactivateApplication, () => setDoomed(undefined));
  const remove = useChange(ApplicationService.method.deleteApplication, () => props.go(back));
  const backLink = (
    <p>
      <a
        href={`/ui/console/${back}`}
        onClick={(e) => {
          e.preventDefault();
          props.go(back);
        }}
      >
        ← {t.project}
      </a>
    </p>
  );
  if (got.isPending) return <Loading />;
  if (got.error)
    return (
      <section aria-labelledby="app-title">
        {backLink}
        <h1 id="app-title">{t.application}</h1>
        <Failure error={got.error} />
      </section>
    );
  const app = got.data.application!;
  const mayWrite = can('project.app.write', { orgId: app.organizationId, projectId: app.projectId });
  const c = app.configuration;
  const usesKeys =
    (c.case === 'oidc' && c.value.authMethodType === OidcAuthMethodType.PRIVATE_KEY_JWT) ||
    (c.case === 'api' && c.value.authMethodType === ApiAuthMethodType.PRIVATE_KEY_JWT);
  const active = app.state === ApplicationState.ACTIVE;
  const error = secret.error ?? deactivate.error ?? reactivate.error ?? remove.error;
  const id = app.applicationId;
  const questions: Record<Doomed, [string, string, () => void]> = {
    secret: [t.confirmNewSecret(app.name), t.newSecret, () => secret.mutate({ applicationId: id })],
    deactivate: [deactivateQuestion(t, app), t.deactivate, () => deactivate.mutate({ applicationId: id })],
    reactivate: [t.confirmReactivateApp(app.name), t.reactivate, () => reactivate.mutate({ applicationId: id })],
    delete: [t.confirmDeleteApp(app.name), t.delete, () => remove.mutate({ applicationId: id })],
  };
  const tabs = [
    { id: 'overview', label: t.appOverview },
    { id: 'settings', label: c.case === 'oidc' ? t.appSettingsTab : t.settings },
    ...(usesKeys ? [{ id: 'keys', label: t.appKeys }] : []),
  ];
  const base = `projects/${props.projectId}/applications/${id}`;
  const tab = tabs.some((x) => x.id === props.tab) ? props.tab! : 'overview';
  return (
    <section aria-labelledby="app-title" aria-busy={!ready}>
      {backLink}
      <h1 id="app-title">{app.name}</h1>
      <Tabs
        id="app"
        label={t.appSections}
        tabs={tabs}
        current={tab}
        onChoose={(to) => props.go(to === 'overview' ? base : `${base}/${to}`)}
      >
        {tab === 'overview' && (
          <>
            <Facts app={app} />
            {mayWrite && (
              <p className="actions start">
                {app.hasClientSecret && (
                  <button type="button" onClick={() => setDoomed('secret')}>
                    {t.newSecret}
                  </button>
                )}
                <button type="button" onClick={() => setDoomed(active ? 'deactivate' : 'reactivate')}>
                  {active ? t.deactivate : t.reactivate}
                </button>
                {mayDelete(id) && (
                  <button type="button" className="danger" onClick={() => setDoomed('delete')}>
                    {t.delete}
                  </button>
                )}
              </p>
            )}
            {error && <Failure error={error} />}
            {secret.data && <ShownOnce clientSecret={secret.data.clientSecret} onDone={() => secret.reset()} />}
            {c.case === 'oidc' && <Snippet app={app} />}
          </>
        )}
        {tab === 'settings' && (
          <>
            {c.case === 'oidc' && <OidcSettings key={id} app={app} mayWrite={mayWrite} />}
            {c.case === 'api' && <ApiSettings key={id} app={app} mayWrite={mayWrite} />}
            {c.case === 'saml' && <SamlSettings key={id} app={app} mayWrite={mayWrite} />}
          </>
        )}
        {tab === 'keys' && <ApplicationKeys applicationId={id} mayWrite={mayWrite} />}
      </Tabs>
      {doomed && (
        <Confirm
          question={questions[doomed][0]}
          action={questions[doomed][1]}
          onConfirm={questions[doomed][2]}
          onCancel={() => setDoomed(undefined)}
        />
      )}
    </section>
  );
}

/** What the application is, and what a client needs to reach it: its credentials and the issuer's addresses. */
function Facts({ app }: { app: Application }) {
  const t = useWords();
  const issuer = useIssuer();
  const c = app.configuration;
  return (
    <dl className="facts">
      <dt>{t.appType}</dt>
      <dd>{c.case === 'oidc' ? 'OpenID Connect' : c.case === 'api' ? t.appApi : t.appSaml}</dd>
      <dt>{t.state}</dt>
      <dd>{app.state === ApplicationState.ACTIVE ? t.active : t.inactive}</dd>
      {c.case !== 'saml' && c.value && (
        <>
          <dt>{t.clientId}</dt>
          <dd>
            <CopyValue value={c.value.clientId} testId="app-client-id" name={t.clientId} />
          </dd>
          <dt>{t.clientSecret}</dt>
          <dd>{app.hasClientSecret ? t.secretSet : t.secretNone}</dd>
        </>
      )}
      {c.case === 'saml' ? (
        <>
          <dt>{t.samlMetadata}</dt>
          <dd>
            <CopyValue value={`${issuer}/saml/v2/metadata`} testId="app-saml-metadata" name={t.samlMetadata} />
          </dd>
        </>
      ) : (
        <>
          <dt>{t.issuer}</dt>
          <dd>
            <CopyValue value={issuer} testId="app-issuer" name={t.issuer} />
          </dd>
          <dt>{c.case === 'api' ? t.introspectionUrl : t.discoveryUrl}</dt>
          <dd>
            {c.case === 'api' ? (
              <CopyValue value={`${issuer}/oauth/v2/introspect`} testId="app-introspection" name={t.introspectionUrl} />
            ) : (
              <CopyValue
                value={`${issuer}/.well-known/openid-configuration`}
                testId="app-discovery"
                name={t.discoveryUrl}
              />
            )}
          </dd>
        </>
      )}
      <dt>{t.applicationId}</dt>
      <dd>
        <CopyValue value={app.applicationId} testId="app-id" name={t.applicationId} />
      </dd>
      <dt>{t.created}</dt>
      <dd>{dateCell(app.creationDate && timestampDate(app.creationDate))}</dd>
    </dl>
  );
}

const SNIPPET_AUTH: Record<number, SnippetAuth> = {
  [OidcAuthMethodType.BASIC]: 'basic',
  [OidcAuthMethodType.POST]: 'post',
  [OidcAuthMethodType.NONE]: 'none',
  [OidcAuthMethodType.PRIVATE_KEY_JWT]: 'key',
};

/** Code that signs users in to this application with openid-client, filled in with its values. */
function Snippet({ app }: { app: Application }) {
  const t = useWords();
  const issuer = useIssuer();
  const c = app.configuration.value as OidcConfiguration;
  const auth = SNIPPET_AUTH[c.authMethodType] ?? 'basic';
  const code = openidClientSnippet({
    issuer,
    clientId: c.clientId,
    redirectUri: c.redirectUris[0] ?? 'https://app.example.com/callback',
    auth,
  });
  return (
    <section aria-labelledby="snippet-title">
      <h2 id="snippet-title">{t.connectApp}</h2>
      <p>{t.snippetIntro(auth === 'basic' || auth === 'post')}</p>
      <CopyBlock code={code} name={t.snippetName} testId="app-snippet" />
    </section>
  );
}
