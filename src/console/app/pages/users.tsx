/** @jsxImportSource react */
import type { MessageInitShape } from '@bufbuild/protobuf';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { useQuery } from '@connectrpc/connect-query';
import { type FormEvent, type MouseEvent, useState } from 'react';
import { TextFilterMethod } from '../../../../gen/portcullis/object/v2/object_pb';
import { type User, UserState } from '../../../../gen/portcullis/user/v2/user_pb';
import { type UserFilterSchema, UserService } from '../../../../gen/portcullis/user/v2/user_service_pb';
import { Confirm } from '../components/confirm';
import { CreateInDialog, DialogActions, PageHead } from '../components/dialog';
import { OrgSelect, useOrganizationsWhere, useOrgNames } from '../components/org-select';
import { DataTable, dateCell } from '../components/data-table';
import { Field, fieldError } from '../components/field';
import { ListBody, SearchField, useListState } from '../components/listing';
import { Failure } from '../components/status';
import { PasswordRules } from '../components/password-rules';
import { TextField } from '../components/text-field';
import { useWords } from '../context';
import type { Words } from '../i18n';
import { useChange } from '../mutations';
import { usePermissions } from '../permissions';
import { useOrgScope } from '../scope';
import { UserDetail } from './user-detail';

type Action = 'lock' | 'unlock' | 'deactivate' | 'reactivate' | 'delete';
type Pending = { user: User; action: Action };
type FilterInit = MessageInitShape<typeof UserFilterSchema>;

/** Which state changes a user in a state may get, and the permission each needs. */
const ACTIONS: Record<number, { action: Action; permission: string }[]> = {
  [UserState.ACTIVE]: [
    { action: 'lock', permission: 'user.write' },
    { action: 'deactivate', permission: 'user.write' },
  ],
  [UserState.LOCKED]: [{ action: 'unlock', permission: 'user.write' }],
  [UserState.INACTIVE]: [{ action: 'reactivate', permission: 'user.write' }],
};
/** Taking nothing away, these run without a question. */
const SAFE: Action[] = ['unlock', 'reactivate'];

function stateName(t: Words, s: UserState): string {
  return s === UserState.ACTIVE ? t.active : s === UserState.LOCKED ? t.locked : t.inactive;
}

function nameOf(u: User): string {
  return u.type.case === 'human' ? (u.type.value.profile?.displayName ?? u.username) : u.username;
}

/** Users: the list, or one user's detail page when the path names it. */
export function Users({ rest, go }: { rest: string; go: (to: string) => void }) {
  return rest ? <UserDetail userId={rest} go={go} /> : <UserList go={go} />;
}

/** Users: search (username, display name, email), filter by state, sort by creation, page; create; lock, delete. */
function UserList({ go }: { go: (to: string) => void }) {
  const t = useWords();
  const { can, ready } = usePermissions();
  const list = useListState();
  const { search } = list;
  const [state, setState] = useState<UserState>(UserState.UNSPECIFIED);
  const [pending, setPending] = useState<Pending>();
  const scope = useOrgScope();
  const text = { value: search, method: TextFilterMethod.CONTAINS_IGNORE_CASE };
  const filters: FilterInit[] = [
    ...(search
      ? [
          {
            filter: {
              case: 'orFilter' as const,
              value: {
                filters: [
                  { filter: { case: 'usernameFilter' as const, value: text } },
                  { filter: { case: 'displayNameFilter' as const, value: text } },
                  { filter: { case: 'emailFilter' as const, value: text } },
                ],
              },
            },
          },
        ]
      : []),
    ...(state ? [{ filter: { case: 'stateFilter' as const, value: { state } } }] : []),
    ...(scope.listOrgId
      ? [{ filter: { case: 'organizationIdFilter' as const, value: { organizationId: scope.listOrgId } } }]
      : []),
  ];
  const orgNames = useOrgNames();
  const users = useQuery(UserService.method.listUsers, { pagination: list.pagination, filters });
  const done = () => setPending(undefined);
  const mutations = {
    lock: useChange(UserService.method.lockUser, done),
    unlock: useChange(UserService.method.unlockUser, done),
    deactivate: useChange(UserService.method.deactivateUser, done),
    reactivate: useChange(UserService.method.reactivateUser, done),
    delete: useChange(UserService.method.deleteUser, done),
  };
  const actionError = Object.values(mutations).find((m) => m.error)?.error;
  const run = ({ user, action }: Pending) => mutations[action].mutate({ userId: user.userId });
  const ask = (p: Pending) => (SAFE.includes(p.action) ? run(p) : setPending(p));
  const open = (u: User) => (e: MouseEvent) => {
    if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    go(`users/${u.userId}`);
  };

  return (
    // busy until the person's permissions are known: until then no action is offered
    <section aria-labelledby="users-title" aria-busy={!ready}>
      <PageHead id="users-title" title={t.users}>
        <CreateUser onCreated={(id) => go(`users/${id}`)} />
      </PageHead>
      <search className="filters">
        <SearchField id="user-search" label={t.search} list={list} />
        <Field id="user-state" label={t.state}>
          <select id="user-state" value={state} onChange={(e) => list.refilter(setState)(Number(e.target.value))}>
            <option value={UserState.UNSPECIFIED}>{t.any}</option>
            <option value={UserState.ACTIVE}>{t.active}</option>
            <option value={UserState.LOCKED}>{t.locked}</option>
            <option value={UserState.INACTIVE}>{t.inactive}</option>
          </select>
        </Field>
      </search>
      {actionError && <Failure error={actionError} />}
      <ListBody query={users} list={list} total={(d) => d.pagination?.totalResult}>
        {(data) => (
          <DataTable
            rows={data.result}
            empty={search || state ? t.noMatch : t.emptyUsers}
            rowKey={(u) => u.userId}
            columns={[
              {
                header: t.name,
                cell: (u) => (
                  <a href={`/ui/console/users/${u.userId}`} onClick={open(u)}>
                    {nameOf(u)}
                  </a>
                ),
              },
              { header: t.loginName, cell: (u) => u.preferredLoginName },
              // across organizations, whose each user is
              ...(scope.orgId
                ? []
                : [{ header: t.organization, cell: (u: User) => orgNames.get(u.organizationId) ?? u.organizationId }]),
              { header: t.kind, cell: (u) => (u.type.case === 'machine' ? t.machine : t.human) },
              { header: t.state, cell: (u) => stateName(t, u.state) },
              {
                header: t.created,
                cell: (u) => dateCell(u.creationDate && timestampDate(u.creationDate)),
                sort: list.sort,
              },
            ]}
            actions={(user) => {
              const scope = { orgId: user.organizationId };
              return (
                <>
                  {(ACTIONS[user.state] ?? [])
                    .filter((a) => can(a.permission, scope))
                    .map(({ action }) => (
                      <button key={action} type="button" onClick={() => ask({ user, action })}>
                        {t[action]}
                      </button>
                    ))}
                  {can('user.delete', scope) && (
                    <button type="button" className="danger" onClick={() => ask({ user, action: 'delete' })}>
                      {t.delete}
                    </button>
                  )}
                </>
              );
            }}
          />
        )}
      </ListBody>
      {pending && (
        <Confirm
          question={t.confirmUser(pending.action, nameOf(pending.user))}
          action={t[pending.action]}
          onConfirm={() => run(pending)}
          onCancel={() => setPending(undefined)}
        />
      )}
    </section>
  );
}

/**
 * A new user, human or machine (one form: its kind picks the fields), where the person may add users; once
 * created, the user's page opens.
 */
function CreateUser({ onCreated }: { onCreated: (id: string) => void }) {
  const t = useWords();
  const allowed = useOrganizationsWhere('user.write');
  const [kind, setKind] = useState<'human' | 'machine'>('human');
  if (allowed.length === 0) return null;
  const kindSelect = (
    <Field id="user-kind" label={t.kind}>
      <select id="user-kind" value={kind} onChange={(e) => setKind(e.target.value as 'human' | 'machine')}>
        <option value="human">{t.human}</option>
        <option value="machine">{t.machine}</option>
      </select>
    </Field>
  );
  return (
    <CreateInDialog id="user-create" label={t.newUser}>
      {(close) => (
        // the kind's select stays where it is while the fields below it change with it
        <>
          <div className="dialog-lead">{kindSelect}</div>
          {kind === 'human' ? (
            <CreateHumanUser onCancel={close} onCreated={onCreated} />
          ) : (
            <CreateMachineUser onCancel={close} onCreated={onCreated} />
          )}
        </>
      )}
    </CreateInDialog>
  );
}

interface CreateProps {
  onCancel: () => void;
  onCreated: (id: string) => void;
}

/** A human user with a password, in an organization where the signed-in person may add users. */
function CreateHumanUser({ onCancel, onCreated }: CreateProps) {
  const t = useWords();
  const allowed = useOrganizationsWhere('user.write');
  const scope = useOrgScope();
  const [form, setForm] = useState({ orgId: '', givenName: '', familyName: '', email: '', username: '', password: '' });
  // unchecked unless the person says otherwise: a verified address is a login name too
  const [emailVerified, setEmailVerified] = useState(false);
  const create = useChange(UserService.method.createUser);
  if (allowed.length === 0) return null;
  const orgId = form.orgId || (allowed.find((o) => o.id === scope.orgId) ?? allowed[0]).id;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate(
      {
        organizationId: orgId,
        username: form.username || undefined,
        userType: {
          case: 'human',
          value: {
            profile: { givenName: form.givenName, familyName: form.familyName },
            email: {
              email: form.email,
              verification: emailVerified ? { case: 'isVerified', value: true } : { case: 'sendCode', value: {} },
            },
            passwordType: form.password
              ? { case: 'password', value: { password: form.password, changeRequired: true } }
              : { case: undefined },
          },
        },
      },
      { onSuccess: (r) => onCreated(r.id) },
    );
  };
  // The server names fields by their place in the request (human.profile.given_name); match the leaf.
  const errorOf = (field: string) =>
    fieldError(create.error, field) ??
    fieldError(create.error, `human.profile.${field}`) ??
    fieldError(create.error, `human.email.${field}`) ??
    fieldError(create.error, `human.password.${field}`);
  const input = (name: keyof typeof form, label: string, type = 'text', field = name as string) => (
    <TextField
      id={`user-${name}`}
      label={label}
      type={type}
      value={form[name]}
      autoComplete={type === 'password' ? 'new-password' : 'off'}
      onChange={(v) => setForm({ ...form, [name]: v })}
      error={errorOf(field)}
      hint={type === 'password' ? <PasswordRules /> : undefined}
    />
  );
  const shown = ['given_name', 'family_name', 'email', 'username', 'password'].some((f) => errorOf(f));
  return (
    <form className="dialog-form" onSubmit={submit}>
      <OrgSelect id="user-org" orgs={allowed} value={orgId} onChange={(v) => setForm({ ...form, orgId: v })} />
      {input('givenName', t.givenName, 'text', 'given_name')}
      {input('familyName', t.familyName, 'text', 'family_name')}
      {input('email', t.email, 'email')}
      <div className="check">
        <input
          id="user-email-verified"
          type="checkbox"
          checked={emailVerified}
          onChange={(e) => setEmailVerified(e.target.checked)}
          aria-describedby="user-email-verified-hint"
        />
        <label htmlFor="user-email-verified">{t.emailIsVerified}</label>
      </div>
      <p className="hint" id="user-email-verified-hint">
        {t.emailVerifiedHint}
      </p>
      {input('username', t.username)}
      {input('password', t.initialPassword, 'password')}
      {create.error && !shown && <Failure error={create.error} />}
      <DialogActions onCancel={onCancel} submit={t.create} pending={create.isPending} />
    </form>
  );
}

/** A machine user (service account): it signs in with personal access tokens, keys or a secret. */
function CreateMachineUser({ onCancel, onCreated }: CreateProps) {
  const t = useWords();
  const allowed = useOrganizationsWhere('user.write');
  const scope = useOrgScope();
  const [form, setForm] = useState({ orgId: '', username: '', name: '', description: '' });
  const create = useChange(UserService.method.createUser);
  if (allowed.length === 0) return null;
  const orgId = form.orgId || (allowed.find((o) => o.id === scope.orgId) ?? allowed[0]).id;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate(
      {
        organizationId: orgId,
        username: form.username || undefined,
        userType: {
          case: 'machine',
          value: { name: form.name, description: form.description || undefined },
        },
      },
      { onSuccess: (r) => onCreated(r.id) },
    );
  };
  const errorOf = (field: string) => fieldError(create.error, field) ?? fieldError(create.error, `machine.${field}`);
  const input = (name: 'username' | 'name' | 'description', label: string) => (
    <TextField
      id={`machine-${name}`}
      label={label}
      value={form[name]}
      autoComplete="off"
      onChange={(v) => setForm({ ...form, [name]: v })}
      error={errorOf(name)}
    />
  );
  const shown = ['username', 'name', 'description'].some((f) => errorOf(f));
  return (
    <form className="dialog-form" onSubmit={submit}>
      <OrgSelect id="machine-org" orgs={allowed} value={orgId} onChange={(v) => setForm({ ...form, orgId: v })} />
      {input('username', t.username)}
      {input('name', t.name)}
      {input('description', t.description)}
      {create.error && !shown && <Failure error={create.error} />}
      <DialogActions onCancel={onCancel} submit={t.create} pending={create.isPending} />
    </form>
  );
}
