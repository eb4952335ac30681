/** @jsxImportSource react */
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { useQuery } from '@connectrpc/connect-query';
import { type FormEvent, useState } from 'react';
import { OrganizationService } from '../../../../gen/portcullis/org/v2/org_service_pb';
import {
  GrantState,
  type Project,
  type ProjectGrant,
  ProjectService,
} from '../../../../gen/portcullis/project/v2/project_service_pb';
import { Confirm } from '../components/confirm';
import { CreateInDialog, DialogActions } from '../components/dialog';
import { DataTable, dateCell } from '../components/data-table';
import { Field, fieldError } from '../components/field';
import { ChangeRoles, RoleChecks } from '../components/role-checks';
import { Failure, Loading } from '../components/status';
import { TextField } from '../components/text-field';
import { useWords } from '../context';
import { useChange } from '../mutations';
import { usePermissions } from '../permissions';

type Pending = { grant: ProjectGrant; action: 'deactivate' | 'delete' };

/**
 * A project's grants to other organizations: grant it with some of its roles, change them, deactivate,
 * activate, delete. The organization it is granted to sees its grant here, read only.
 */
export function ProjectGrants({ project }: { project: Project }) {
  const t = useWords();
  const { can } = usePermissions();
  const mayWrite =
    !project.grantId && can('project.grant.write', { orgId: project.organizationId, projectId: project.id });
  const grants = useQuery(ProjectService.method.listProjectGrants, {
    projectId: project.id,
    pagination: { limit: 1000, asc: true },
  });
  const roles = (
    useQuery(ProjectService.method.listProjectRoles, { projectId: project.id, pagination: { limit: 1000 } }).data
      ?.projectRoles ?? []
  ).map((r) => ({ key: r.key, label: r.displayName }));
  const [editing, setEditing] = useState<ProjectGrant>();
  const [pending, setPending] = useState<Pending>();
  const done = () => setPending(undefined);
  const mutations = {
    deactivate: useChange(ProjectService.method.deactivateProjectGrant, done),
    activate: useChange(ProjectService.method.activateProjectGrant, done),
    delete: useChange(ProjectService.method.deleteProjectGrant, done),
  };
  const actionError = Object.values(mutations).find((m) => m.error)?.error;
  const names = (g: ProjectGrant) => ({ projectId: g.projectId, grantedOrganizationId: g.grantedOrganizationId });
  return (
    <>
      <div className="section-head">
        <h2 id="grants-title">{t.projectGrants}</h2>
        {mayWrite && (
          <CreateGrant
            project={project}
            roles={roles}
            granted={(grants.data?.projectGrants ?? []).map((g) => g.grantedOrganizationId)}
          />
        )}
      </div>
      {editing && (
        <EditGrant key={editing.grantId} grant={editing} roles={roles} onDone={() => setEditing(undefined)} />
      )}
      {actionError && <Failure error={actionError} />}
      {grants.isPending ? (
        <Loading />
      ) : grants.error ? (
        <Failure error={grants.error} />
      ) : (
        <DataTable
          rows={grants.data.projectGrants}
          empty={t.emptyGrants}
          rowKey={(g) => g.grantId}
          columns={[
            { header: t.grantedTo, cell: (g) => g.grantedOrganizationName },
            { header: t.roles, cell: (g) => g.roleKeys.join(', ') },
            { header: t.state, cell: (g) => (g.state === GrantState.ACTIVE ? t.active : t.inactive) },
            { header: t.created, cell: (g) => dateCell(g.creationDate && timestampDate(g.creationDate)) },
          ]}
          actions={(g) =>
            mayWrite && (
              <>
                <button type="button" onClick={() => setEditing(g)}>
                  {t.changeRoles}
                </button>
                {g.state === GrantState.ACTIVE ? (
                  <button type="button" onClick={() => setPending({ grant: g, action: 'deactivate' })}>
                    {t.deactivate}
                  </button>
                ) : (
                  // taking nothing away, activating runs without a question
                  <button type="button" onClick={() => mutations.activate.mutate(names(g))}>
                    {t.activate}
                  </button>
                )}
                <button type="button" className="danger" onClick={() => setPending({ grant: g, action: 'delete' })}>
                  {t.delete}
                </button>
              </>
            )
          }
        />
      )}
      {pending && (
        <Confirm
          question={t.confirmGrant(pending.action, pending.grant.grantedOrganizationName)}
          action={t[pending.action]}
          onConfirm={() => mutations[pending.action].mutate(names(pending.grant))}
          onCancel={done}
        />
      )}
    </>
  );
}

type Roles = { key: string; label: string }[];

/**
 * Grants the project to an organization. The organizations the person sees are offered; one who sees no
 * other (an organization's owner) types the other organization's id.
 */
function CreateGrant({ project, roles, granted }: { project: Project; roles: Roles; granted: string[] }) {
  const t = useWords();
  const orgs = useQuery(OrganizationService.method.listOrganizations, { pagination: { limit: 1000 } });
  const seen = (orgs.data?.organizations ?? []).filter((o) => o.id !== project.organizationId);
  // an organization is granted a project once: those already granted are changed in the list below
  const others = seen.filter((o) => !granted.includes(o.id));
  if (seen.length > 0 && others.length === 0) return null;
  return (
    <CreateInDialog id="grant-create" label={t.grantProject}>
      {(close) => <GrantForm project={project} roles={roles} others={others} onDone={close} />}
    </CreateInDialog>
  );
}

function GrantForm(props: {
  project: Project;
  roles: Roles;
  others: { id: string; name: string }[];
  onDone: () => void;
}) {
  const { project, roles, others } = props;
  const t = useWords();
  const [form, setForm] = useState({ orgId: '', roles: [] as string[] });
  const create = useChange(ProjectService.method.createProjectGrant, props.onDone);
  const orgId = form.orgId || (others[0]?.id ?? '');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate({ projectId: project.id, grantedOrganizationId: orgId, roleKeys: form.roles });
  };
  const orgError = fieldError(create.error, 'granted_organization_id');
  const rolesError = fieldError(create.error, 'role_keys');
  return (
    <form className="dialog-form" onSubmit={submit}>
      {others.length > 0 ? (
        <Field id="grant-org" label={t.organization} error={orgError}>
          <select id="grant-org" value={orgId} onChange={(e) => setForm({ ...form, orgId: e.target.value })}>
            {others.map((o) => (
              <option key={o.id} value={o.id}>
                {o.name}
              </option>
            ))}
          </select>
        </Field>
      ) : (
        <TextField
          id="grant-org"
          label={t.organizationId}
          value={form.orgId}
          onChange={(v) => setForm({ ...form, orgId: v })}
          error={orgError}
        />
      )}
      <RoleChecks
        id="grant-roles"
        legend={t.roles}
        roles={roles}
        value={form.roles}
        onChange={(r) => setForm({ ...form, roles: r })}
        error={rolesError}
      />
      {create.error && !orgError && !rolesError && <Failure error={create.error} />}
      <DialogActions onCancel={props.onDone} submit={t.grant} pending={create.isPending} />
    </form>
  );
}

/** Replaces the granted roles; authorizations through the grant lose those left out (the API does that). */
function EditGrant({ grant, roles, onDone }: { grant: ProjectGrant; roles: Roles; onDone: () => void }) {
  const t = useWords();
  const update = useChange(ProjectService.method.updateProjectGrant, onDone);
  return (
    <ChangeRoles
      id="grant-edit"
      title={t.changeRolesOn(grant.grantedOrganizationName)}
      roles={roles}
      initial={grant.roleKeys}
      change={update}
      onSave={(roleKeys) =>
        update.mutate({ projectId: grant.projectId, grantedOrganizationId: grant.grantedOrganizationId, roleKeys })
      }
      onCancel={onDone}
    />
  );
}
