/** @jsxImportSource react */
import type { MessageInitShape } from '@bufbuild/protobuf';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { useQuery } from '@connectrpc/connect-query';
import { type FormEvent, useState } from 'react';
import {
  type Administrator,
  AdministratorService,
  type ResourceSchema,
  ResourceType,
} from '../../../../gen/portcullis/administrator/v2/administrator_service_pb';
import { OrganizationService } from '../../../../gen/portcullis/org/v2/org_service_pb';
import { ProjectService } from '../../../../gen/portcullis/project/v2/project_service_pb';
import { ADMIN_ROLES } from '../admin-roles';
import { Confirm } from '../components/confirm';
import { CreateInDialog, DialogActions, PageHead } from '../components/dialog';
import { DataTable, dateCell } from '../components/data-table';
import { Field, fieldError } from '../components/field';
import { ListBody, useListState } from '../components/listing';
import { ChangeRoles, RoleChecks } from '../components/role-checks';
import { Failure } from '../components/status';
import { UserPicker, useUserNames } from '../components/user-picker';
import { useWords } from '../context';
import type { Words } from '../i18n';
import { useChange } from '../mutations';
import { type Scope, usePermissions } from '../permissions';

const ALL = { pagination: { limit: 1000 } };
type ResourceInit = MessageInitShape<typeof ResourceSchema>;

/** The API's name of a membership's resource. */
function resourceOf(a: { resourceType: ResourceType; resourceId: string }): ResourceInit {
  return a.resourceType === ResourceType.INSTANCE
    ? { resource: { case: 'instance', value: true } }
    : a.resourceType === ResourceType.ORGANIZATION
      ? { resource: { case: 'organizationId', value: a.resourceId } }
      : { resource: { case: 'projectId', value: a.resourceId } };
}

/** Where a membership's permission is checked: the instance, the organization, or the project in its organization. */
function scopeOf(a: { resourceType: ResourceType; resourceId: string; resourceOwner: string }): Scope | undefined {
  return a.resourceType === ResourceType.INSTANCE
    ? undefined
    : a.resourceType === ResourceType.ORGANIZATION
      ? { orgId: a.resourceId }
      : { orgId: a.resourceOwner, projectId: a.resourceId };
}

function kindName(t: Words, type: ResourceType): string {
  return type === ResourceType.INSTANCE ? t.instance : type === ResourceType.ORGANIZATION ? t.organization : t.project;
}

/** The names of the organizations and projects the person sees, for the resource column and the form. */
function useResourceNames() {
  const orgs = useQuery(OrganizationService.method.listOrganizations, ALL).data?.organizations ?? [];
  // owned records only: a granted record is not a resource of its own
  const projects = (useQuery(ProjectService.method.listProjects, ALL).data?.projects ?? []).filter((p) => !p.grantId);
  return { orgs, projects, names: new Map([...orgs, ...projects].map((r) => [r.id, r.name])) };
}

/**
 * Administrators: the memberships on the instance, organizations and projects the person may see, with their
 * roles. Filter by user and role; add one, change its roles, remove it.
 */
export function Administrators() {
  const t = useWords();
  const { can, ready } = usePermissions();
  const list = useListState();
  const [filter, setFilter] = useState({ userId: '', role: '' });
  const [editing, setEditing] = useState<Administrator>();
  const [doomed, setDoomed] = useState<Administrator>();
  const admins = useQuery(AdministratorService.method.listAdministrators, {
    pagination: list.pagination,
    userId: filter.userId,
    role: filter.role,
  });
  const resources = useResourceNames();
  const users = useUserNames(admins.data?.administrators.map((a) => a.userId) ?? []);
  const remove = useChange(AdministratorService.method.deleteAdministrator, () => setDoomed(undefined));
  const set = (k: keyof typeof filter) => list.refilter((v: string) => setFilter({ ...filter, [k]: v }));
  const resourceName = (a: Administrator) =>
    a.resourceType === ResourceType.INSTANCE
      ? t.instance
      : `${kindName(t, a.resourceType)}: ${resources.names.get(a.resourceId) ?? a.resourceId}`;
  const key = (a: Administrator) => `${a.userId}/${a.resourceType}/${a.resourceId}`;
  return (
    // busy until the person's permissions are known: until then no action is offered
    <section aria-labelledby="administrators-title" aria-busy={!ready}>
      <PageHead id="administrators-title" title={t.administrators}>
        <CreateAdministrator {...resources} />
      </PageHead>
      <search className="filters">
        <UserPicker id="admin-filter-user" label={t.user} value={filter.userId} onChange={set('userId')} any />
        <Field id="admin-filter-role" label={t.role}>
          <select id="admin-filter-role" value={filter.role} onChange={(e) => set('role')(e.target.value)}>
            <option value="">{t.any}</option>
            {Object.values(ADMIN_ROLES)
              .flat()
              .map((r) => (
                <option key={r}>{r}</option>
              ))}
          </select>
        </Field>
      </search>
      {remove.error && <Failure error={remove.error} />}
      {editing && <EditAdminRoles key={key(editing)} admin={editing} onDone={() => setEditing(undefined)} />}
      <ListBody query={admins} list={list} total={(d) => d.pagination?.totalResult}>
        {(data) => (
          <DataTable
            rows={data.administrators}
            empty={t.noMatch}
            rowKey={key}
            columns={[
              { header: t.user, cell: (a) => users.get(a.userId) ?? a.userId },
              { header: t.resource, cell: resourceName },
              { header: t.roles, cell: (a) => a.roles.join(', ') },
              {
                header: t.created,
                cell: (a) => dateCell(a.creationDate && timestampDate(a.creationDate)),
                sort: list.sort,
              },
            ]}
            actions={(a) =>
              can('administrator.write', scopeOf(a)) && (
                <>
                  <button type="button" onClick={() => setEditing(a)}>
                    {t.changeRoles}
                  </button>
                  <button type="button" className="danger" onClick={() => setDoomed(a)}>
                    {t.remove}
                  </button>
                </>
              )
            }
          />
        )}
      </ListBody>
      {doomed && (
        <Confirm
          question={t.confirmRemoveAdministrator(users.get(doomed.userId) ?? doomed.userId, resourceName(doomed))}
          action={t.remove}
          onConfirm={() => remove.mutate({ userId: doomed.userId, resource: resourceOf(doomed) })}
          onCancel={() => setDoomed(undefined)}
        />
      )}
    </section>
  );
}

/** Makes a user an administrator of a resource the signed-in person administers, with roles that fit it. */
function CreateAdministrator(props: ReturnType<typeof useResourceNames>) {
  const t = useWords();
  const { can } = usePermissions();
  const choices = [
    ...(can('administrator.write') ? [{ type: ResourceType.INSTANCE, id: '', name: t.instance }] : []),
    ...props.orgs
      .filter((o) => can('administrator.write', { orgId: o.id }))
      .map((o) => ({ type: ResourceType.ORGANIZATION, id: o.id, name: `${t.organization}: ${o.name}` })),
    ...props.projects
      .filter((p) => can('administrator.write', { orgId: p.organizationId, projectId: p.id }))
      .map((p) => ({ type: ResourceType.PROJECT, id: p.id, name: `${t.project}: ${p.name}` })),
  ];
  if (choices.length === 0) return null;
  return (
    <CreateInDialog id="admin-create" label={t.newAdministrator}>
      {(close) => <AdministratorForm choices={choices} onDone={close} />}
    </CreateInDialog>
  );
}

type ResourceChoice = { type: ResourceType; id: string; name: string };

function AdministratorForm({ choices, onDone }: { choices: ResourceChoice[]; onDone: () => void }) {
  const t = useWords();
  const [form, setForm] = useState({ userId: '', resource: '', roles: [] as string[] });
  const create = useChange(AdministratorService.method.createAdministrator, onDone);
  const chosen = choices.find((c) => `${c.type}/${c.id}` === form.resource) ?? choices[0];
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate({
      userId: form.userId,
      resource: resourceOf({ resourceType: chosen.type, resourceId: chosen.id }),
      roles: form.roles,
    });
  };
  const userError = fieldError(create.error, 'user_id');
  const rolesError = fieldError(create.error, 'roles');
  return (
    <form className="dialog-form" onSubmit={submit}>
      <UserPicker
        id="admin-user"
        label={t.user}
        value={form.userId}
        onChange={(userId) => setForm({ ...form, userId })}
        error={userError}
      />
      <Field id="admin-resource" label={t.resource}>
        <select
          id="admin-resource"
          value={`${chosen.type}/${chosen.id}`}
          onChange={(e) => setForm({ ...form, resource: e.target.value, roles: [] })}
        >
          {choices.map((c) => (
            <option key={`${c.type}/${c.id}`} value={`${c.type}/${c.id}`}>
              {c.name}
            </option>
          ))}
        </select>
      </Field>
      <RoleChecks
        id="admin-roles"
        legend={t.roles}
        roles={ADMIN_ROLES[chosen.type].map((key) => ({ key }))}
        value={form.roles}
        onChange={(roles) => setForm({ ...form, roles })}
        error={rolesError}
      />
      {create.error && !userError && !rolesError && <Failure error={create.error} />}
      <DialogActions onCancel={onDone} submit={t.add} pending={create.isPending} />
    </form>
  );
}

/** Replaces a membership's roles with those ticked (at least one; removing it is the other action). */
function EditAdminRoles({ admin, onDone }: { admin: Administrator; onDone: () => void }) {
  const t = useWords();
  const update = useChange(AdministratorService.method.updateAdministrator, onDone);
  return (
    <ChangeRoles
      id="admin-edit"
      title={t.changeRoles}
      roles={ADMIN_ROLES[admin.resourceType].map((key) => ({ key }))}
      initial={admin.roles}
      change={update}
      onSave={(roles) => update.mutate({ userId: admin.userId, resource: resourceOf(admin), roles })}
      onCancel={onDone}
    />
  );
}
