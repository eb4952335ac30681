/** @jsxImportSource react */
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { useQuery } from '@connectrpc/connect-query';
import { type FormEvent, useState } from 'react';
import {
  type Authorization,
  AuthorizationService,
  AuthorizationState,
} from '../../../../gen/portcullis/authorization/v2/authorization_service_pb';
import { OrganizationService } from '../../../../gen/portcullis/org/v2/org_service_pb';
import { type Project, ProjectService } from '../../../../gen/portcullis/project/v2/project_service_pb';
import { Confirm } from '../components/confirm';
import { CreateInDialog, DialogActions, PageHead } from '../components/dialog';
import { DataTable, dateCell } from '../components/data-table';
import { Field, fieldError } from '../components/field';
import { ListBody, useListState } from '../components/listing';
import { ChangeRoles, RoleChecks } from '../components/role-checks';
import { Failure } from '../components/status';
import { UserPicker, useUserNames } from '../components/user-picker';
import { useWords } from '../context';
import { useChange } from '../mutations';
import { usePermissions } from '../permissions';
import { useOrgScope } from '../scope';

const ALL = { pagination: { limit: 1000 } };

/** A project record as a choice: an owned project, or a project granted to an organization. */
const recordKey = (p: Project) => `${p.id}/${p.grantId}`;
/** The organization that gives authorizations through a record: the owner, or the granted organization. */
const giverOf = (p: Project) => p.grantedOrganizationId || p.organizationId;

/**
 * Authorizations: users' roles on projects. Filter by user, project, giving organization, state; create, change
 * roles, deactivate, activate, delete.
 */
export function Authorizations() {
  const t = useWords();
  const { can, ready } = usePermissions();
  const list = useListState();
  const scope = useOrgScope();
  const [filter, setFilter] = useState({ userId: '', projectId: '', orgId: '' });
  const [state, setState] = useState(AuthorizationState.UNSPECIFIED);
  const [editing, setEditing] = useState<Authorization>();
  const [pending, setPending] = useState<{ authorization: Authorization; action: 'deactivate' | 'delete' }>();
  const auths = useQuery(AuthorizationService.method.listAuthorizations, {
    pagination: list.pagination,
    userId: filter.userId,
    projectId: filter.projectId,
    // the organization chosen in the top bar, unless another is picked here
    organizationId: filter.orgId || scope.listOrgId || '',
    state,
  });
  const projects = useQuery(ProjectService.method.listProjects, ALL).data?.projects ?? [];
  const orgs = useQuery(OrganizationService.method.listOrganizations, ALL).data?.organizations ?? [];
  const users = useUserNames(auths.data?.authorizations.map((a) => a.userId) ?? []);
  const projectName = new Map(projects.map((p) => [p.id, p.name]));
  const orgName = new Map(orgs.map((o) => [o.id, o.name]));
  const done = () => setPending(undefined);
  const mutations = {
    deactivate: useChange(AuthorizationService.method.deactivateAuthorization, done),
    activate: useChange(AuthorizationService.method.activateAuthorization, done),
    delete: useChange(AuthorizationService.method.deleteAuthorization, done),
  };
  const actionError = Object.values(mutations).find((m) => m.error)?.error;
  const set = (k: keyof typeof filter) => list.refilter((v: string) => setFilter({ ...filter, [k]: v }));
  const mayWrite = (a: Authorization) =>
    can('authorization.write', { orgId: a.organizationId, projectId: a.projectId });
  return (
    // busy until the person's permissions are known: until then no action is offered
    <section aria-labelledby="authorizations-title" aria-busy={!ready}>
      <PageHead id="authorizations-title" title={t.authorizations}>
        <CreateAuthorization projects={projects} />
      </PageHead>
      <search className="filters">
        <UserPicker id="authz-filter-user" label={t.user} value={filter.userId} onChange={set('userId')} any />
        <Field id="authz-filter-project" label={t.project}>
          <select id="authz-filter-project" value={filter.projectId} onChange={(e) => set('projectId')(e.target.value)}>
            <option value="">{t.any}</option>
            {[...projectName].map(([id, name]) => (
              <option key={id} value={id}>
                {name}
              </option>
            ))}
          </select>
        </Field>
        <Field id="authz-filter-org" label={t.givenBy}>
          <select id="authz-filter-org" value={filter.orgId} onChange={(e) => set('orgId')(e.target.value)}>
            <option value="">{t.any}</option>
            {orgs.map((o) => (
              <option key={o.id} value={o.id}>
                {o.name}
              </option>
            ))}
          </select>
        </Field>
        <Field id="authz-filter-state" label={t.state}>
          <select
            id="authz-filter-state"
            value={state}
            onChange={(e) => list.refilter(setState)(Number(e.target.value))}
          >
            <option value={AuthorizationState.UNSPECIFIED}>{t.any}</option>
            <option value={AuthorizationState.ACTIVE}>{t.active}</option>
            <option value={AuthorizationState.INACTIVE}>{t.inactive}</option>
          </select>
        </Field>
      </search>
      {actionError && <Failure error={actionError} />}
      {editing && <EditRoles key={editing.id} authorization={editing} onDone={() => setEditing(undefined)} />}
      <ListBody query={auths} list={list} total={(d) => d.pagination?.totalResult}>
        {(data) => (
          <DataTable
            rows={data.authorizations}
            empty={filter.userId || filter.projectId || filter.orgId || state ? t.noMatch : t.emptyAuthorizations}
            rowKey={(a) => a.id}
            columns={[
              { header: t.user, cell: (a) => users.get(a.userId) ?? a.userId },
              { header: t.project, cell: (a) => projectName.get(a.projectId) ?? a.projectId },
              { header: t.givenBy, cell: (a) => orgName.get(a.organizationId) ?? a.organizationId },
              { header: t.roles, cell: (a) => a.roleKeys.join(', ') },
              { header: t.state, cell: (a) => (a.state === AuthorizationState.INACTIVE ? t.inactive : t.active) },
              {
                header: t.created,
                cell: (a) => dateCell(a.creationDate && timestampDate(a.creationDate)),
                sort: list.sort,
              },
            ]}
            actions={(a) =>
              mayWrite(a) && (
                <>
                  <button type="button" onClick={() => setEditing(a)}>
                    {t.changeRoles}
                  </button>
                  {a.state === AuthorizationState.INACTIVE ? (
                    // taking nothing away, activating runs without a question
                    <button type="button" onClick={() => mutations.activate.mutate({ id: a.id })}>
                      {t.activate}
                    </button>
                  ) : (
                    <button type="button" onClick={() => setPending({ authorization: a, action: 'deactivate' })}>
                      {t.deactivate}
                    </button>
                  )}
                  <button
                    type="button"
                    className="danger"
                    onClick={() => setPending({ authorization: a, action: 'delete' })}
                  >
                    {t.delete}
                  </button>
                </>
              )
            }
          />
        )}
      </ListBody>
      {pending && (
        <Confirm
          question={t.confirmAuthorization(
            pending.action,
            users.get(pending.authorization.userId) ?? pending.authorization.userId,
            projectName.get(pending.authorization.projectId) ?? pending.authorization.projectId,
          )}
          action={t[pending.action]}
          onConfirm={() => mutations[pending.action].mutate({ id: pending.authorization.id })}
          onCancel={done}
        />
      )}
    </section>
  );
}

/** The roles a record offers: all the project's, or on a granted record only the granted ones. */
function useRolesOf(projectId: string, grantedKeys: string[] | undefined) {
  const roles = useQuery(
    ProjectService.method.listProjectRoles,
    { projectId, pagination: { limit: 1000 } },
    { enabled: projectId !== '' },
  );
  return (roles.data?.projectRoles ?? [])
    .filter((r) => !grantedKeys || grantedKeys.includes(r.key))
    .map((r) => ({ key: r.key, label: r.displayName }));
}

/** Gives a user roles on a project the signed-in person may authorize on (owned or granted to their organization). */
function CreateAuthorization({ projects }: { projects: Project[] }) {
  const t = useWords();
  const { can } = usePermissions();
  const allowed = projects.filter((p) => can('authorization.write', { orgId: giverOf(p), projectId: p.id }));
  if (allowed.length === 0) return null;
  return (
    <CreateInDialog id="authz-create" label={t.newAuthorization}>
      {(close) => <AuthorizationForm allowed={allowed} onDone={close} />}
    </CreateInDialog>
  );
}

function AuthorizationForm({ allowed, onDone }: { allowed: Project[]; onDone: () => void }) {
  const t = useWords();
  const [form, setForm] = useState({ userId: '', record: '', roles: [] as string[] });
  const create = useChange(AuthorizationService.method.createAuthorization, onDone);
  const project = allowed.find((p) => recordKey(p) === form.record) ?? allowed[0];
  const roles = useRolesOf(project.id, project.grantId ? project.grantedRoleKeys : undefined);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate({
      userId: form.userId,
      projectId: project.id,
      organizationId: giverOf(project),
      roleKeys: form.roles,
    });
  };
  const userError = fieldError(create.error, 'user_id');
  const rolesError = fieldError(create.error, 'role_keys');
  return (
    <form className="dialog-form" onSubmit={submit}>
      <UserPicker
        id="authz-user"
        label={t.user}
        value={form.userId}
        onChange={(userId) => setForm({ ...form, userId })}
        error={userError}
      />
      <Field id="authz-project" label={t.project}>
        <select
          id="authz-project"
          value={recordKey(project)}
          onChange={(e) => setForm({ ...form, record: e.target.value, roles: [] })}
        >
          {allowed.map((p) => (
            <option key={recordKey(p)} value={recordKey(p)}>
              {p.grantId ? `${p.name} (${t.grantedTo} ${p.grantedOrganizationName})` : p.name}
            </option>
          ))}
        </select>
      </Field>
      <RoleChecks
        id="authz-roles"
        legend={t.roles}
        roles={roles}
        value={form.roles}
        onChange={(r) => setForm({ ...form, roles: r })}
        error={rolesError}
      />
      {create.error && !userError && !rolesError && <Failure error={create.error} />}
      <DialogActions onCancel={onDone} submit={t.create} pending={create.isPending} />
    </form>
  );
}

/** Replaces an authorization's roles with those ticked. */
function EditRoles({ authorization: a, onDone }: { authorization: Authorization; onDone: () => void }) {
  const t = useWords();
  const project = useQuery(ProjectService.method.getProject, { projectId: a.projectId }).data?.project;
  // given through a grant, only the granted roles are on offer
  const grant = useQuery(
    ProjectService.method.listProjectGrants,
    { pagination: { limit: 1000 }, projectId: a.projectId },
    { enabled: a.projectGrantId !== '' },
  ).data?.projectGrants.find((g) => g.grantId === a.projectGrantId);
  const roles = useRolesOf(a.projectId, a.projectGrantId ? (grant?.roleKeys ?? []) : undefined);
  const update = useChange(AuthorizationService.method.updateAuthorization, onDone);
  return (
    <ChangeRoles
      id="authz-edit"
      title={t.changeRolesOn(project?.name ?? a.projectId)}
      roles={roles}
      initial={a.roleKeys}
      change={update}
      onSave={(roleKeys) => update.mutate({ id: a.id, roleKeys })}
      onCancel={onDone}
    />
  );
}
