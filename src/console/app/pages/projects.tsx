/** @jsxImportSource react */
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { useQuery } from '@connectrpc/connect-query';
import { type FormEvent, type MouseEvent, useState } from 'react';
import { TextFilterMethod } from '../../../../gen/portcullis/object/v2/object_pb';
import { type Project, ProjectService, ProjectState } from '../../../../gen/portcullis/project/v2/project_service_pb';
import { Confirm } from '../components/confirm';
import { OrgSelect, useOrganizationsWhere } from '../components/org-select';
import { DataTable, dateCell } from '../components/data-table';
import { fieldError } from '../components/field';
import { ListBody, SearchField, useListState } from '../components/listing';
import { Failure, Loading } from '../components/status';
import { TextField } from '../components/text-field';
import { useWords } from '../context';
import { useChange } from '../mutations';
import { usePermissions } from '../permissions';
import { ApplicationDetail } from './application-detail';
import { ProjectApplications } from './project-applications';
import { ProjectGrants } from './project-grants';

/**
 * Projects: the list (owned and granted), one project's roles when the path names it, or one of its
 * applications (`<projectId>/applications/<applicationId>`).
 */
export function Projects({ rest, go }: { rest: string; go: (to: string) => void }) {
  const [projectId, sub, applicationId] = rest.split('/');
  if (sub === 'applications' && applicationId)
    return <ApplicationDetail projectId={projectId} applicationId={applicationId} go={go} />;
  return rest ? <ProjectRoles projectId={projectId} go={go} /> : <ProjectList go={go} />;
}

function ProjectList({ go }: { go: (to: string) => void }) {
  const t = useWords();
  const { can, ready } = usePermissions();
  const list = useListState();
  const { search } = list;
  const [doomed, setDoomed] = useState<Project>();
  const projects = useQuery(ProjectService.method.listProjects, {
    pagination: list.pagination,
    filters: search
      ? [{ filter: { case: 'name', value: { name: search, method: TextFilterMethod.CONTAINS_IGNORE_CASE } } }]
      : [],
  });
  const remove = useChange(ProjectService.method.deleteProject, () => setDoomed(undefined));
  const open = (p: Project) => (e: MouseEvent) => {
    if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    go(`projects/${p.id}`);
  };
  return (
    // busy until the person's permissions are known: until then no action is offered
    <section aria-labelledby="projects-title" aria-busy={!ready}>
      <h1 id="projects-title">{t.projects}</h1>
      <CreateProject />
      <search className="filters">
        <SearchField id="project-search" label={t.searchByName} list={list} />
      </search>
      {remove.error && <Failure error={remove.error} />}
      <ListBody query={projects} list={list} total={(d) => d.pagination?.totalResult}>
        {(data) => (
          <DataTable
            rows={data.projects}
            rowKey={(p) => `${p.id}/${p.grantId}`}
            columns={[
              {
                header: t.name,
                cell: (p) => (
                  <a href={`/ui/console/projects/${p.id}`} onClick={open(p)}>
                    {p.name}
                  </a>
                ),
              },
              { header: t.state, cell: (p) => (p.state === ProjectState.ACTIVE ? t.active : t.inactive) },
              { header: t.grantedTo, cell: (p) => p.grantedOrganizationName },
              {
                header: t.created,
                cell: (p) => dateCell(p.creationDate && timestampDate(p.creationDate)),
                sort: list.sort,
              },
            ]}
            actions={(p) =>
              !p.grantId &&
              can('project.delete', { orgId: p.organizationId, projectId: p.id }) && (
                <button type="button" className="danger" onClick={() => setDoomed(p)}>
                  {t.delete}
                </button>
              )
            }
          />
        )}
      </ListBody>
      {doomed && (
        <Confirm
          question={t.confirmDeleteProject(doomed.name)}
          action={t.delete}
          onConfirm={() => remove.mutate({ projectId: doomed.id })}
          onCancel={() => setDoomed(undefined)}
        />
      )}
    </section>
  );
}

function CreateProject() {
  const t = useWords();
  const allowed = useOrganizationsWhere('project.write');
  const [name, setName] = useState('');
  const [orgId, setOrgId] = useState('');
  const create = useChange(ProjectService.method.createProject, () => setName(''));
  if (allowed.length === 0) return null;
  const org = orgId || allowed[0].id;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate({ organizationId: org, name });
  };
  const nameError = fieldError(create.error, 'name');
  return (
    <form className="inline-form" onSubmit={submit} aria-labelledby="project-create-title">
      <h2 id="project-create-title">{t.newProject}</h2>
      <OrgSelect id="project-org" orgs={allowed} value={org} onChange={setOrgId} />
      <TextField id="project-name" label={t.name} value={name} onChange={setName} error={nameError} />
      <button type="submit" disabled={create.isPending}>
        {t.create}
      </button>
      {create.error && !nameError && <Failure error={create.error} />}
    </form>
  );
}

/** One project: its roles (add, remove behind a confirmation) and its applications. */
function ProjectRoles({ projectId, go }: { projectId: string; go: (to: string) => void }) {
  const t = useWords();
  const { can, ready } = usePermissions();
  const project = useQuery(ProjectService.method.getProject, { projectId });
  const roles = useQuery(ProjectService.method.listProjectRoles, { projectId, pagination: { limit: 1000 } });
  const [form, setForm] = useState({ key: '', displayName: '', group: '' });
  const [doomed, setDoomed] = useState<string>();
  const add = useChange(ProjectService.method.addProjectRole, () => setForm({ key: '', displayName: '', group: '' }));
  const remove = useChange(ProjectService.method.removeProjectRole, () => setDoomed(undefined));
  if (project.isPending) return <Loading />;
  if (project.error) return <Failure error={project.error} />;
  const p = project.data.project!;
  const mayWrite = !p.grantId && can('project.role.write', { orgId: p.organizationId, projectId: p.id });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    add.mutate({ projectId, roleKey: form.key, displayName: form.displayName, group: form.group || undefined });
  };
  const keyError = fieldError(add.error, 'role_key');
  const nameError = fieldError(add.error, 'display_name');
  return (
    <section aria-labelledby="project-title" aria-busy={!ready}>
      <p>
        <a
          href="/ui/console/projects"
          onClick={(e) => {
            e.preventDefault();
            go('projects');
          }}
        >
          ← {t.projects}
        </a>
      </p>
      <h1 id="project-title">{p.name}</h1>
      <h2>{t.roles}</h2>
      {mayWrite && (
        <form className="inline-form" onSubmit={submit} aria-label={t.newRole}>
          <TextField
            id="role-key"
            label={t.roleKey}
            value={form.key}
            onChange={(v) => setForm({ ...form, key: v })}
            error={keyError}
          />
          <TextField
            id="role-name"
            label={t.displayName}
            value={form.displayName}
            onChange={(v) => setForm({ ...form, displayName: v })}
            error={nameError}
          />
          <TextField
            id="role-group"
            label={t.group}
            value={form.group}
            onChange={(v) => setForm({ ...form, group: v })}
          />
          <button type="submit" disabled={add.isPending}>
            {t.addRole}
          </button>
          {add.error && !keyError && !nameError && <Failure error={add.error} />}
        </form>
      )}
      {remove.error && <Failure error={remove.error} />}
      {roles.isPending ? (
        <Loading />
      ) : roles.error ? (
        <Failure error={roles.error} />
      ) : (
        <DataTable
          rows={roles.data.projectRoles}
          rowKey={(r) => r.key}
          columns={[
            { header: t.roleKey, cell: (r) => <code>{r.key}</code> },
            { header: t.displayName, cell: (r) => r.displayName },
            { header: t.group, cell: (r) => r.group },
          ]}
          actions={(r) =>
            mayWrite && (
              <button type="button" className="danger" onClick={() => setDoomed(r.key)}>
                {t.remove}
              </button>
            )
          }
        />
      )}
      {doomed && (
        <Confirm
          question={t.confirmRemoveRole(doomed)}
          action={t.remove}
          onConfirm={() => remove.mutate({ projectId, roleKey: doomed })}
          onCancel={() => setDoomed(undefined)}
        />
      )}
      <ProjectGrants project={p} />
      <ProjectApplications project={p} go={go} />
    </section>
  );
}
