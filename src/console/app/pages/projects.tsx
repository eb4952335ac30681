/** @jsxImportSource react */
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { useMutation, useQuery } from '@connectrpc/connect-query';
import { useQueryClient } from '@tanstack/react-query';
import { type FormEvent, type MouseEvent, useState } from 'react';
import { TextFilterMethod } from '../../../../gen/portcullis/object/v2/object_pb';
import { OrganizationService } from '../../../../gen/portcullis/org/v2/org_service_pb';
import { type Project, ProjectService, ProjectState } from '../../../../gen/portcullis/project/v2/project_service_pb';
import { Confirm } from '../components/confirm';
import { Field, fieldError } from '../components/field';
import { PAGE_SIZE, Pager } from '../components/pager';
import { Failure, Loading } from '../components/status';
import { useWords } from '../context';
import { usePermissions } from '../permissions';
import { ProjectApplications } from './project-applications';

/** Projects: the list (owned and granted), or one project's roles when the path names it. */
export function Projects({ rest, go }: { rest: string; go: (to: string) => void }) {
  return rest ? <ProjectRoles projectId={rest} go={go} /> : <ProjectList go={go} />;
}

function ProjectList({ go }: { go: (to: string) => void }) {
  const t = useWords();
  const { can, ready } = usePermissions();
  const [search, setSearch] = useState('');
  const [asc, setAsc] = useState(false);
  const [offset, setOffset] = useState(0);
  const [doomed, setDoomed] = useState<Project>();
  const list = useQuery(ProjectService.method.listProjects, {
    pagination: { offset: BigInt(offset), limit: PAGE_SIZE, asc },
    filters: search
      ? [{ filter: { case: 'name', value: { name: search, method: TextFilterMethod.CONTAINS_IGNORE_CASE } } }]
      : [],
  });
  const queries = useQueryClient();
  const remove = useMutation(ProjectService.method.deleteProject, {
    onSuccess: () => {
      setDoomed(undefined);
      void queries.invalidateQueries();
    },
  });
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
        <Field id="project-search" label={t.searchByName}>
          <input
            id="project-search"
            type="search"
            value={search}
            onChange={(e) => {
              setSearch(e.target.value);
              setOffset(0);
            }}
          />
        </Field>
      </search>
      {remove.error && <Failure error={remove.error} />}
      {list.isPending ? (
        <Loading />
      ) : list.error ? (
        <Failure error={list.error} />
      ) : (
        <>
          <div className="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">{t.name}</th>
                  <th scope="col">{t.state}</th>
                  <th scope="col">{t.grantedTo}</th>
                  <th scope="col" aria-sort={asc ? 'ascending' : 'descending'}>
                    <button type="button" className="sort" onClick={() => setAsc(!asc)}>
                      {t.created} {asc ? '↑' : '↓'}
                    </button>
                  </th>
                  <th scope="col">
                    <span className="visually-hidden">{t.actions}</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {list.data.projects.map((p) => (
                  <tr key={`${p.id}/${p.grantId}`}>
                    <td>
                      <a href={`/ui/console/projects/${p.id}`} onClick={open(p)}>
                        {p.name}
                      </a>
                    </td>
                    <td>{p.state === ProjectState.ACTIVE ? t.active : t.inactive}</td>
                    <td>{p.grantedOrganizationName}</td>
                    <td>
                      {p.creationDate
                        ? timestampDate(p.creationDate).toLocaleDateString(document.documentElement.lang)
                        : ''}
                    </td>
                    <td className="row-actions">
                      {!p.grantId && can('project.delete', { orgId: p.organizationId, projectId: p.id }) && (
                        <button type="button" className="danger" onClick={() => setDoomed(p)}>
                          {t.delete}
                        </button>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager offset={offset} total={Number(list.data.pagination?.totalResult ?? 0)} onOffset={setOffset} />
        </>
      )}
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
  const { can } = usePermissions();
  const orgs = useQuery(OrganizationService.method.listOrganizations, { pagination: { limit: 1000 } });
  const allowed = (orgs.data?.organizations ?? []).filter((o) => can('project.write', { orgId: o.id }));
  const [name, setName] = useState('');
  const [orgId, setOrgId] = useState('');
  const queries = useQueryClient();
  const create = useMutation(ProjectService.method.createProject, {
    onSuccess: () => {
      setName('');
      void queries.invalidateQueries();
    },
  });
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
      <Field id="project-org" label={t.organization}>
        <select id="project-org" value={org} onChange={(e) => setOrgId(e.target.value)}>
          {allowed.map((o) => (
            <option key={o.id} value={o.id}>
              {o.name}
            </option>
          ))}
        </select>
      </Field>
      <Field id="project-name" label={t.name} error={nameError}>
        <input
          id="project-name"
          value={name}
          onChange={(e) => setName(e.target.value)}
          aria-invalid={nameError ? true : undefined}
          aria-describedby={nameError ? 'project-name-error' : undefined}
        />
      </Field>
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
  const queries = useQueryClient();
  const refresh = () => void queries.invalidateQueries();
  const add = useMutation(ProjectService.method.addProjectRole, {
    onSuccess: () => {
      setForm({ key: '', displayName: '', group: '' });
      refresh();
    },
  });
  const remove = useMutation(ProjectService.method.removeProjectRole, {
    onSuccess: () => {
      setDoomed(undefined);
      refresh();
    },
  });
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
          <Field id="role-key" label={t.roleKey} error={keyError}>
            <input
              id="role-key"
              value={form.key}
              onChange={(e) => setForm({ ...form, key: e.target.value })}
              aria-invalid={keyError ? true : undefined}
              aria-describedby={keyError ? 'role-key-error' : undefined}
            />
          </Field>
          <Field id="role-name" label={t.displayName} error={nameError}>
            <input
              id="role-name"
              value={form.displayName}
              onChange={(e) => setForm({ ...form, displayName: e.target.value })}
              aria-invalid={nameError ? true : undefined}
              aria-describedby={nameError ? 'role-name-error' : undefined}
            />
          </Field>
          <Field id="role-group" label={t.group}>
            <input id="role-group" value={form.group} onChange={(e) => setForm({ ...form, group: e.target.value })} />
          </Field>
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
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">{t.roleKey}</th>
                <th scope="col">{t.displayName}</th>
                <th scope="col">{t.group}</th>
                <th scope="col">
                  <span className="visually-hidden">{t.actions}</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {roles.data.projectRoles.map((r) => (
                <tr key={r.key}>
                  <td>
                    <code>{r.key}</code>
                  </td>
                  <td>{r.displayName}</td>
                  <td>{r.group}</td>
                  <td className="row-actions">
                    {mayWrite && (
                      <button type="button" className="danger" onClick={() => setDoomed(r.key)}>
                        {t.remove}
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {doomed && (
        <Confirm
          question={t.confirmRemoveRole(doomed)}
          action={t.remove}
          onConfirm={() => remove.mutate({ projectId, roleKey: doomed })}
          onCancel={() => setDoomed(undefined)}
        />
      )}
      <ProjectApplications project={p} />
    </section>
  );
}
