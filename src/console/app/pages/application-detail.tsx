/** @jsxImportSource react */
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { useQuery } from '@connectrpc/connect-query';
import { useState } from 'react';
import {
  ApiAuthMethodType,
  type Application,
  ApplicationState,
  OidcAuthMethodType,
} from '../../../../gen/portcullis/application/v2/application_pb';
import { ApplicationService } from '../../../../gen/portcullis/application/v2/application_service_pb';
import { Confirm } from '../components/confirm';
import { dateCell } from '../components/data-table';
import { ShownOnce } from '../components/shown-once';
import { Failure, Loading } from '../components/status';
import { useWords } from '../context';
import { useChange } from '../mutations';
import { usePermissions } from '../permissions';
import { deactivateQuestion, mayDelete } from '../system-app';
import { ApplicationKeys } from './application-keys';
import { OidcSettings } from './oidc-settings';
import { ApiSettings, SamlSettings } from './other-settings';

type Doomed = 'secret' | 'deactivate' | 'reactivate' | 'delete';

/**
 * One application: what it is, its settings, its secret and keys, its state. Whoever lacks
 * project.app.write on the project sees all of it read-only; an application the caller may not read is
 * the server's refusal, never data.
 */
export function ApplicationDetail(props: { projectId: string; applicationId: string; go: (to: string) => void }) {
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
  return (
    <section aria-labelledby="app-title" aria-busy={!ready}>
      {backLink}
      <h1 id="app-title">{app.name}</h1>
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
      {c.case === 'oidc' && <OidcSettings key={id} app={app} mayWrite={mayWrite} />}
      {c.case === 'api' && <ApiSettings key={id} app={app} mayWrite={mayWrite} />}
      {c.case === 'saml' && <SamlSettings key={id} app={app} mayWrite={mayWrite} />}
      {usesKeys && <ApplicationKeys applicationId={id} mayWrite={mayWrite} />}
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

function Facts({ app }: { app: Application }) {
  const t = useWords();
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
            <code>{c.value.clientId}</code>
          </dd>
        </>
      )}
      <dt>{t.created}</dt>
      <dd>{dateCell(app.creationDate && timestampDate(app.creationDate))}</dd>
    </dl>
  );
}
