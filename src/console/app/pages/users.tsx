/** @jsxImportSource react */
import type { MessageInitShape } from '@bufbuild/protobuf';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { useMutation, useQuery } from '@connectrpc/connect-query';
import { useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { TextFilterMethod } from '../../../../gen/portcullis/object/v2/object_pb';
import { OrganizationService } from '../../../../gen/portcullis/org/v2/org_service_pb';
import { type User, UserState } from '../../../../gen/portcullis/user/v2/user_pb';
import { type UserFilterSchema, UserService } from '../../../../gen/portcullis/user/v2/user_service_pb';
import { Confirm } from '../components/confirm';
import { Field, fieldError } from '../components/field';
import { PAGE_SIZE, Pager } from '../components/pager';
import { Failure, Loading } from '../components/status';
import { useWords } from '../context';
import type { Words } from '../i18n';
import { usePermissions } from '../permissions';

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

/** Users: search (username, display name, email), filter by state, sort by creation, page; create; lock, delete. */
export function Users() {
  const t = useWords();
  const { can, ready } = usePermissions();
  const [search, setSearch] = useState('');
  const [state, setState] = useState<UserState>(UserState.UNSPECIFIED);
  const [asc, setAsc] = useState(false);
  const [offset, setOffset] = useState(0);
  const [pending, setPending] = useState<Pending>();
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
  ];
  const list = useQuery(UserService.method.listUsers, {
    pagination: { offset: BigInt(offset), limit: PAGE_SIZE, asc },
    filters,
  });
  const queries = useQueryClient();
  const options = {
    onSuccess: () => {
      setPending(undefined);
      void queries.invalidateQueries();
    },
  };
  const mutations = {
    lock: useMutation(UserService.method.lockUser, options),
    unlock: useMutation(UserService.method.unlockUser, options),
    deactivate: useMutation(UserService.method.deactivateUser, options),
    reactivate: useMutation(UserService.method.reactivateUser, options),
    delete: useMutation(UserService.method.deleteUser, options),
  };
  const actionError = Object.values(mutations).find((m) => m.error)?.error;
  const run = ({ user, action }: Pending) => mutations[action].mutate({ userId: user.userId });
  const ask = (p: Pending) => (SAFE.includes(p.action) ? run(p) : setPending(p));

  return (
    // busy until the person's permissions are known: until then no action is offered
    <section aria-labelledby="users-title" aria-busy={!ready}>
      <h1 id="users-title">{t.users}</h1>
      <CreateUser />
      <search className="filters">
        <Field id="user-search" label={t.search}>
          <input
            id="user-search"
            type="search"
            value={search}
            onChange={(e) => {
              setSearch(e.target.value);
              setOffset(0);
            }}
          />
        </Field>
        <Field id="user-state" label={t.state}>
          <select
            id="user-state"
            value={state}
            onChange={(e) => {
              setState(Number(e.target.value));
              setOffset(0);
            }}
          >
            <option value={UserState.UNSPECIFIED}>{t.any}</option>
            <option value={UserState.ACTIVE}>{t.active}</option>
            <option value={UserState.LOCKED}>{t.locked}</option>
            <option value={UserState.INACTIVE}>{t.inactive}</option>
          </select>
        </Field>
      </search>
      {actionError && <Failure error={actionError} />}
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
                  <th scope="col">{t.loginName}</th>
                  <th scope="col">{t.kind}</th>
                  <th scope="col">{t.state}</th>
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
                {list.data.result.map((user) => {
                  const scope = { orgId: user.organizationId };
                  const actions = (ACTIONS[user.state] ?? []).filter((a) => can(a.permission, scope));
                  return (
                    <tr key={user.userId}>
                      <td>{nameOf(user)}</td>
                      <td>{user.preferredLoginName}</td>
                      <td>{user.type.case === 'machine' ? t.machine : t.human}</td>
                      <td>{stateName(t, user.state)}</td>
                      <td>
                        {user.creationDate
                          ? timestampDate(user.creationDate).toLocaleDateString(document.documentElement.lang)
                          : ''}
                      </td>
                      <td className="row-actions">
                        {actions.map(({ action }) => (
                          <button key={action} type="button" onClick={() => ask({ user, action })}>
                            {t[action]}
                          </button>
                        ))}
                        {can('user.delete', scope) && (
                          <button type="button" className="danger" onClick={() => ask({ user, action: 'delete' })}>
                            {t.delete}
                          </button>
                        )}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
          <Pager offset={offset} total={Number(list.data.pagination?.totalResult ?? 0)} onOffset={setOffset} />
        </>
      )}
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

/** A human user with a password, in an organization where the signed-in person may add users. */
function CreateUser() {
  const t = useWords();
  const { can } = usePermissions();
  const orgs = useQuery(OrganizationService.method.listOrganizations, { pagination: { limit: 1000 } });
  const allowed = (orgs.data?.organizations ?? []).filter((o) => can('user.write', { orgId: o.id }));
  const [form, setForm] = useState({ orgId: '', givenName: '', familyName: '', email: '', username: '', password: '' });
  const queries = useQueryClient();
  const create = useMutation(UserService.method.createUser, {
    onSuccess: () => {
      setForm({ ...form, givenName: '', familyName: '', email: '', username: '', password: '' });
      void queries.invalidateQueries();
    },
  });
  if (allowed.length === 0) return null;
  const orgId = form.orgId || allowed[0].id;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate({
      organizationId: orgId,
      username: form.username || undefined,
      userType: {
        case: 'human',
        value: {
          profile: { givenName: form.givenName, familyName: form.familyName },
          email: { email: form.email, verification: { case: 'isVerified', value: true } },
          passwordType: form.password
            ? { case: 'password', value: { password: form.password, changeRequired: true } }
            : { case: undefined },
        },
      },
    });
  };
  // The server names fields by their place in the request (human.profile.given_name); match the leaf.
  const errorOf = (field: string) =>
    fieldError(create.error, field) ??
    fieldError(create.error, `human.profile.${field}`) ??
    fieldError(create.error, `human.email.${field}`) ??
    fieldError(create.error, `human.password.${field}`);
  const input = (name: keyof typeof form, label: string, type = 'text', field = name as string) => {
    const error = errorOf(field);
    return (
      <Field id={`user-${name}`} label={label} error={error}>
        <input
          id={`user-${name}`}
          type={type}
          value={form[name]}
          autoComplete={type === 'password' ? 'new-password' : 'off'}
          onChange={(e) => setForm({ ...form, [name]: e.target.value })}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? `user-${name}-error` : undefined}
        />
      </Field>
    );
  };
  const shown = ['given_name', 'family_name', 'email', 'username', 'password'].some((f) => errorOf(f));
  return (
    <form className="inline-form" onSubmit={submit} aria-labelledby="user-create-title">
      <h2 id="user-create-title">{t.newUser}</h2>
      <Field id="user-org" label={t.organization}>
        <select id="user-org" value={orgId} onChange={(e) => setForm({ ...form, orgId: e.target.value })}>
          {allowed.map((o) => (
            <option key={o.id} value={o.id}>
              {o.name}
            </option>
          ))}
        </select>
      </Field>
      {input('givenName', t.givenName, 'text', 'given_name')}
      {input('familyName', t.familyName, 'text', 'family_name')}
      {input('email', t.email, 'email')}
      {input('username', t.username)}
      {input('password', t.initialPassword, 'password')}
      <button type="submit" disabled={create.isPending}>
        {t.create}
      </button>
      {create.error && !shown && <Failure error={create.error} />}
      {create.data && (
        <p role="status" className="ok">
          {t.created}: <code>{create.data.id}</code>
        </p>
      )}
    </form>
  );
}
