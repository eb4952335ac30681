/** @jsxImportSource react */
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { useQuery } from '@connectrpc/connect-query';
import { type FormEvent, type MouseEvent, useState } from 'react';
import { TextFilterMethod } from '../../../../gen/portcullis/object/v2/object_pb';
import { type Project, ProjectService, ProjectState } from '../../../../gen/portcullis/project/v2/project_service_pb';
import { Confirm } from '../components/confirm';
import { CreateInDialog, DialogActions, PageHead } from '../components/dialog';
import { OrgSelect, useOrganizationsWhere, useOrgNames } from '../components/org-select';
import { CopyValue } from '../components/shown-once';
import { DataTable, dateCell } from '../components/data-table';
import { fieldError } from '../components/field';
import { ListBody, SearchField, useListState } from '../components/listing';
import { Failure, Loading } from '../components/status';
import { TextField } from '../components/text-field';
import { useWords } from '../context';
import { useChange } from '../mutations';
import { usePermissions } from '../permissions';
import { useOrgScope } from '../scope';
import { ApplicationDetail } from './application-detail';
import { ProjectApplications } from './project-applications';
import { ProjectGrants } from './project-grants';

/**
 * Projects: the list (owned and granted), one project's roles when the path names it, or one of its
 * applications (`<projectId>/applications/<applicationId>[/<tab>]`).
 */
export function Projects({ rest, go }: { rest: string; go: (to: string) => void }) {
  const [projectId, sub, applicationId, tab] = rest.split('/');
  if (sub === 'applications' && applicationId)
    return <ApplicationDetail projectId={projectId} applicationId={applicationId} tab={tab} go={go} />;
  return rest ? <ProjectRoles projectId={projectId} go={go} /> : <ProjectList go={go} />;
}

function ProjectList({ go }: { go: (to: string) => void }) {
  const t = useWords();
  const { can, ready } = usePermissions();
  const list = useListState();
  const { search } = list;
  const [doomed, setDoomed] = useState<Project>();
  const scope = useOrgScope();
  const projects = useQuery(ProjectService.method.listProjects, {
    pagination: list.pagination,
    filters: [
      ...(search
        ? [
            {
              filter: {
                case: 'name' as const,
                value: { name: search, method: TextFilterMethod.CONTAINS_IGNORE_CASE },
              },
            },
          ]
        : []),
      // the chosen organization's projects (and their grants to others)
      ...(scope.listOrgId
        ? [{ filter: { case: 'projectOrganizationId' as const, value: { organizationId: scope.listOrgId } } }]
        : []),
    ],
  });
  const orgNames = useOrgNames();
  const remove = useChange(ProjectService.method.deleteProject, () => setDoomed(undefined));
  const open = (p: Project) => (e: MouseEvent) => {
    if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    go(`projects/${p.id}`);
  };
  return (
    // busy until the person's permissions are known: until then no action is offered
    <section aria-labelledby="projects-title" aria-busy={!ready}>
      <PageHead id="projects-title" title={t.projects}>
        <CreateProject onCreated={(id) => go(`projects/${id}`)} />
      </PageHead>
      <search className="filters">
        <SearchField id="project-search" label={t.searchByName} list={list} />
      </search>
      {remove.error && <Failure error={remove.error} />}
      <ListBody query={projects} list={list} total={(d) => d.pagination?.totalResult}>
        {(data) => (
          <DataTable
            rows={data.projects}
            empty={search ? t.noMatch : t.emptyProjects}
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
              { header: t.organization, cell: (p) => orgNames.get(p.organizationId) ?? p.organizationId },
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

/** A new project in an organization where the person may create one; once created, its page opens. */
function CreateProject({ onCreated }: { onCreated: (id: string) => void }) {
  const t = useWords();
  const allowed = useOrganizationsWhere('project.write');
  if (allowed.length === 0) return null;
  return (
    <CreateInDialog id="project-create" label={t.newProject}>
      {(close) => <CreateProjectForm allowed={allowed} onCancel={close} onCreated={onCreated} />}
    </CreateInDialog>
  );
}

function CreateProjectForm(props: {
  allowed: { id: string; name: string }[];
  onCancel: () => void;
  onCreated: (id: string) => void;
}) {
  const t = useWords();
  const scope = useOrgScope();
  const [name, setName] = useState('');
  // the organization chosen in the switcher, if the person may create projects there
  const [orgId, setOrgId] = useState(() => props.allowed.find((o) => o.id === scope.orgId)?.id ?? props.allowed[0].id);
  const create = useChange(ProjectService.method.createProject);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate({ organizationId: orgId, name }, { onSuccess: (r) => props.onCreated(r.projectId) });
  };
  const nameError = fieldError(create.error, 'name');
  return (
    <form className="dialog-form" onSubmit={submit}>
      <OrgSelect id="project-org" orgs={props.allowed} value={orgId} onChange={setOrgId} />
      <TextField id="project-name" label={t.name} value={name} onChange={setName} error={nameError} />
      {create.error && !nameError && <Failure error={create.error} />}
      <DialogActions onCancel={props.onCancel} submit={t.create} pending={create.isPending} />
    </form>
  );
}

/** One project: its roles (add, remove behind a confirmation) and its applications. */
function ProjectRoles({ projectId, go }: { projectId: string; go: (to: string) => void }) {
  const t = useWords();
  const { can, ready } = usePermissions();
  const project = useQuery(ProjectService.method.getProject, { projectId });
  const roles = useQuery(ProjectService.method.listProjectRoles, { projectId, pagination: { limit: 1000 } });
  const [doomed, setDoomed] = useState<string>();
  const remove = useChange(ProjectService.method.removeProjectRole, () => setDoomed(undefined));
  if (project.isPending) return <Loading />;
  if (project.error) return <Failure error={project.error} />;
  const p = project.data.project!;
  const mayWrite = !p.grantId && can('project.role.write', { orgId: p.organizationId, projectId: p.id });
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
      <ProjectFacts project={p} go={go} />
      <div className="section-head">
        <h2 id="roles-title">{t.roles}</h2>
        {mayWrite && (
          <CreateInDialog id="role-create" label={t.newRole}>
            {(close) => <AddRole projectId={projectId} onDone={close} />}
          </CreateInDialog>
        )}
      </div>
      {remove.error && <Failure error={remove.error} />}
      {roles.isPending ? (
        <Loading />
      ) : roles.error ? (
        <Failure error={roles.error} />
      ) : (
        <DataTable
          rows={roles.data.projectRoles}
          empty={t.emptyRoles}
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

/** A new role of the project: its key (what tokens carry), display name and group. */
function AddRole({ projectId, onDone }: { projectId: string; onDone: () => void }) {
  const t = useWords();
  const [form, setForm] = useState({ key: '', displayName: '', group: '' });
  const add = useChange(ProjectService.method.addProjectRole, onDone);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    add.mutate({ projectId, roleKey: form.key, displayName: form.displayName, group: form.group || undefined });
  };
  const keyError = fieldError(add.error, 'role_key');
  const nameError = fieldError(add.error, 'display_name');
  return (
    <form className="dialog-form" onSubmit={submit}>
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
      <TextField id="role-group" label={t.group} value={form.group} onChange={(v) => setForm({ ...form, group: v })} />
      {add.error && !keyError && !nameError && <Failure error={add.error} />}
      <DialogActions onCancel={onDone} submit={t.addRole} pending={add.isPending} />
    </form>
  );
}

/** What a project is: its id, the organization that owns it (linked, for those who may open it), its state. */
function ProjectFacts({ project: p, go }: { project: Project; go: (to: string) => void }) {
  const t = useWords();
  const { can } = usePermissions();
  const orgName = useOrgNames().get(p.organizationId);
  const orgPath = `organizations/${p.organizationId}`;
  return (
    <dl className="facts">
      <dt>{t.projectId}</dt>
      <dd>
        <CopyValue value={p.id} testId="project-id" name={t.projectId} />
      </dd>
      <dt>{t.organization}</dt>
      <dd>
        {orgName && can('org.read', { orgId: p.organizationId }) ? (
          <a
            href={`/ui/console/${orgPath}`}
            onClick={(e) => {
              e.preventDefault();
              go(orgPath);
            }}
          >
            {orgName}
          </a>
        ) : (
          (orgName ?? <code>{p.organizationId}</code>)
        )}
      </dd>
      {p.grantId && (
        <>
          <dt>{t.grantedTo}</dt>
          <dd>{p.grantedOrganizationName}</dd>
        </>
      )}
      <dt>{t.state}</dt>
      <dd>{p.state === ProjectState.ACTIVE ? t.active : t.inactive}</dd>
      <dt>{t.created}</dt>
      <dd>{dateCell(p.creationDate && timestampDate(p.creationDate))}</dd>
    </dl>
  );
}
