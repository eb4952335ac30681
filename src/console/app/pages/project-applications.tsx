/** @jsxImportSource react */
import { useQuery } from '@connectrpc/connect-query';
import { type MouseEvent, useState } from 'react';
import { type Application, ApplicationState } from '../../../../gen/portcullis/application/v2/application_pb';
import { ApplicationService } from '../../../../gen/portcullis/application/v2/application_service_pb';
import type { Project } from '../../../../gen/portcullis/project/v2/project_service_pb';
import { Confirm } from '../components/confirm';
import { Dialog } from '../components/dialog';
import { Icon } from '../components/icons';
import { DataTable } from '../components/data-table';
import { Failure, Loading } from '../components/status';
import { useWords } from '../context';
import { useChange } from '../mutations';
import { usePermissions } from '../permissions';
import { ApplicationWizard } from './application-wizard';

/** A project's applications: the list (each opens its page), the wizard for a new one, delete behind a question. */
export function ProjectApplications({ project, go }: { project: Project; go: (to: string) => void }) {
  const t = useWords();
  const { can } = usePermissions();
  const scope = { orgId: project.organizationId, projectId: project.id };
  const mayWrite = !project.grantId && can('project.app.write', scope);
  const apps = useQuery(ApplicationService.method.listApplications, {
    pagination: { limit: 1000, asc: true },
    filters: [{ filter: { case: 'projectId', value: project.id } }],
  });
  const [wizard, setWizard] = useState(false);
  const [created, setCreated] = useState<string>();
  const openApp = (id: string) => go(`projects/${project.id}/applications/${id}`);
  const [doomed, setDoomed] = useState<Application>();
  const remove = useChange(ApplicationService.method.deleteApplication, () => setDoomed(undefined));
  const path = (a: Application) => `projects/${project.id}/applications/${a.applicationId}`;
  const open = (a: Application) => (e: MouseEvent) => {
    if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    go(path(a));
  };
  return (
    <>
      <div className="section-head">
        <h2 id="apps-title">{t.applications}</h2>
        {mayWrite && (
          <button type="button" className="primary" onClick={() => setWizard(true)}>
            <Icon name="plus" />
            {t.newApplication}
          </button>
        )}
      </div>
      {wizard && (
        // closed after the application exists (the credentials step), the dialog opens it
        <Dialog
          id="app-wizard"
          title={t.newApplication}
          onClose={() => (created ? openApp(created) : setWizard(false))}
        >
          <ApplicationWizard
            projectId={project.id}
            onCancel={() => setWizard(false)}
            onCreated={setCreated}
            onOpen={openApp}
          />
        </Dialog>
      )}
      {remove.error && <Failure error={remove.error} />}
      {apps.isPending ? (
        <Loading />
      ) : apps.error ? (
        <Failure error={apps.error} />
      ) : (
        <DataTable
          rows={apps.data.applications}
          empty={t.emptyApps}
          rowKey={(a) => a.applicationId}
          columns={[
            {
              header: t.name,
              cell: (a) => (
                <a href={`/ui/console/${path(a)}`} onClick={open(a)}>
                  {a.name}
                </a>
              ),
            },
            {
              header: t.clientId,
              cell: (a) => (
                <code>{a.configuration.case === 'saml' ? '' : (a.configuration.value?.clientId ?? '')}</code>
              ),
            },
            { header: t.state, cell: (a) => (a.state === ApplicationState.ACTIVE ? t.active : t.inactive) },
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
