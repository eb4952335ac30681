/** @jsxImportSource react */
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { useMutation, useQuery } from '@connectrpc/connect-query';
import { useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { TextFilterMethod } from '../../../../gen/portcullis/object/v2/object_pb';
import {
  type Organization,
  OrganizationService,
  OrganizationState,
} from '../../../../gen/portcullis/org/v2/org_service_pb';
import { Confirm } from '../components/confirm';
import { Field, fieldError } from '../components/field';
import { PAGE_SIZE, Pager } from '../components/pager';
import { Failure, Loading } from '../components/status';
import { useWords } from '../context';
import { usePermissions } from '../permissions';

type Pending = { org: Organization; action: 'deactivate' | 'activate' | 'delete' };

/** Organizations: search by name, filter by state, sort by creation, page; create; deactivate, delete. */
export function Organizations() {
  const t = useWords();
  const [search, setSearch] = useState('');
  const [state, setState] = useState<OrganizationState>(OrganizationState.UNSPECIFIED);
  const [asc, setAsc] = useState(false);
  const [offset, setOffset] = useState(0);
  const [pending, setPending] = useState<Pending>();
  const { can, ready } = usePermissions();
  const filters = [
    ...(search
      ? [
          {
            filter: {
              case: 'nameFilter' as const,
              value: { name: search, method: TextFilterMethod.CONTAINS_IGNORE_CASE },
            },
          },
        ]
      : []),
    ...(state ? [{ filter: { case: 'stateFilter' as const, value: { state } } }] : []),
  ];
  const list = useQuery(OrganizationService.method.listOrganizations, {
    pagination: { offset: BigInt(offset), limit: PAGE_SIZE, asc },
    filters,
  });
  const queries = useQueryClient();
  const done = () => {
    setPending(undefined);
    void queries.invalidateQueries();
  };
  const deactivate = useMutation(OrganizationService.method.deactivateOrganization, { onSuccess: done });
  const activate = useMutation(OrganizationService.method.activateOrganization, { onSuccess: done });
  const remove = useMutation(OrganizationService.method.deleteOrganization, { onSuccess: done });
  const actionError = deactivate.error ?? activate.error ?? remove.error;

  const run = ({ org, action }: Pending) => {
    const req = { organizationId: org.id };
    if (action === 'deactivate') deactivate.mutate(req);
    else if (action === 'activate') activate.mutate(req);
    else remove.mutate(req);
  };

  return (
    // busy until the person's permissions are known: until then no action is offered
    <section aria-labelledby="orgs-title" aria-busy={!ready}>
      <h1 id="orgs-title">{t.organizations}</h1>
      {can('org.create') && <CreateOrganization />}
      <search className="filters">
        <Field id="org-search" label={t.searchByName}>
          <input
            id="org-search"
            type="search"
            value={search}
            onChange={(e) => {
              setSearch(e.target.value);
              setOffset(0);
            }}
          />
        </Field>
        <Field id="org-state" label={t.state}>
          <select
            id="org-state"
            value={state}
            onChange={(e) => {
              setState(Number(e.target.value));
              setOffset(0);
            }}
          >
            <option value={OrganizationState.UNSPECIFIED}>{t.any}</option>
            <option value={OrganizationState.ACTIVE}>{t.active}</option>
            <option value={OrganizationState.INACTIVE}>{t.inactive}</option>
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
                  <th scope="col">{t.primaryDomain}</th>
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
                {list.data.organizations.map((org) => (
                  <tr key={org.id}>
                    <td>{org.name}</td>
                    <td>{org.primaryDomain}</td>
                    <td>{org.state === OrganizationState.ACTIVE ? t.active : t.inactive}</td>
                    <td>
                      {org.creationDate
                        ? timestampDate(org.creationDate).toLocaleDateString(document.documentElement.lang)
                        : ''}
                    </td>
                    <td className="row-actions">
                      {!can('org.write', { orgId: org.id }) ? null : org.state === OrganizationState.ACTIVE ? (
                        <button type="button" onClick={() => setPending({ org, action: 'deactivate' })}>
                          {t.deactivate}
                        </button>
                      ) : (
                        // activating takes nothing away: it runs without a question
                        <button type="button" onClick={() => run({ org, action: 'activate' })}>
                          {t.activate}
                        </button>
                      )}
                      {can('org.delete', { orgId: org.id }) && (
                        <button type="button" className="danger" onClick={() => setPending({ org, action: 'delete' })}>
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
      {pending && (
        <Confirm
          question={
            pending.action === 'delete'
              ? t.confirmDeleteOrg(pending.org.name)
              : t.confirmDeactivateOrg(pending.org.name)
          }
          action={pending.action === 'delete' ? t.delete : t.deactivate}
          onConfirm={() => run(pending)}
          onCancel={() => setPending(undefined)}
        />
      )}
    </section>
  );
}

function CreateOrganization() {
  const t = useWords();
  const [name, setName] = useState('');
  const queries = useQueryClient();
  const create = useMutation(OrganizationService.method.createOrganization, {
    onSuccess: () => {
      setName('');
      void queries.invalidateQueries();
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate({ name });
  };
  const nameError = fieldError(create.error, 'name');
  return (
    <form className="inline-form" onSubmit={submit} aria-labelledby="org-create-title">
      <h2 id="org-create-title">{t.newOrganization}</h2>
      <Field id="org-name" label={t.name} error={nameError}>
        <input
          id="org-name"
          value={name}
          onChange={(e) => setName(e.target.value)}
          aria-invalid={nameError ? true : undefined}
          aria-describedby={nameError ? 'org-name-error' : undefined}
        />
      </Field>
      <button type="submit" disabled={create.isPending}>
        {t.create}
      </button>
      {create.error && !nameError && <Failure error={create.error} />}
      {create.data && (
        <p role="status" className="ok">
          {t.created}: <code>{create.data.organizationId}</code>
        </p>
      )}
    </form>
  );
}
