/** @jsxImportSource react */
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { useQuery } from '@connectrpc/connect-query';
import { type FormEvent, type MouseEvent, useState } from 'react';
import { TextFilterMethod } from '../../../../gen/portcullis/object/v2/object_pb';
import {
  type Organization,
  OrganizationService,
  OrganizationState,
} from '../../../../gen/portcullis/org/v2/org_service_pb';
import { Confirm } from '../components/confirm';
import { CreateInDialog, DialogActions, PageHead } from '../components/dialog';
import { DataTable, dateCell } from '../components/data-table';
import { Field, fieldError } from '../components/field';
import { ListBody, SearchField, useListState } from '../components/listing';
import { Failure } from '../components/status';
import { TextField } from '../components/text-field';
import { useWords } from '../context';
import { useChange } from '../mutations';
import { usePermissions } from '../permissions';
import { OrganizationDetail } from './org-detail';

type Pending = { org: Organization; action: 'deactivate' | 'activate' | 'delete' };

/** Organizations: the list, or one organization's detail page when the path names it. */
export function Organizations({ rest, go }: { rest: string; go: (to: string) => void }) {
  return rest ? <OrganizationDetail orgId={rest} go={go} /> : <OrganizationList go={go} />;
}

/** Organizations: search by name, filter by state, sort by creation, page; create; deactivate, delete. */
function OrganizationList({ go }: { go: (to: string) => void }) {
  const t = useWords();
  const { can, ready } = usePermissions();
  const list = useListState();
  const [state, setState] = useState<OrganizationState>(OrganizationState.UNSPECIFIED);
  const [pending, setPending] = useState<Pending>();
  const { search } = list;
  const orgs = useQuery(OrganizationService.method.listOrganizations, {
    pagination: list.pagination,
    filters: [
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
    ],
  });
  const done = () => setPending(undefined);
  const mutations = {
    deactivate: useChange(OrganizationService.method.deactivateOrganization, done),
    activate: useChange(OrganizationService.method.activateOrganization, done),
    delete: useChange(OrganizationService.method.deleteOrganization, done),
  };
  const actionError = Object.values(mutations).find((m) => m.error)?.error;
  const run = ({ org, action }: Pending) => mutations[action].mutate({ organizationId: org.id });
  const open = (o: Organization) => (e: MouseEvent) => {
    if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    go(`organizations/${o.id}`);
  };

  const actions = (org: Organization) => (
    <>
      {can('org.write', { orgId: org.id }) &&
        (org.state === OrganizationState.ACTIVE ? (
          <button type="button" onClick={() => setPending({ org, action: 'deactivate' })}>
            {t.deactivate}
          </button>
        ) : (
          // activating takes nothing away: it runs without a question
          <button type="button" onClick={() => run({ org, action: 'activate' })}>
            {t.activate}
          </button>
        ))}
      {can('org.delete', { orgId: org.id }) && (
        <button type="button" className="danger" onClick={() => setPending({ org, action: 'delete' })}>
          {t.delete}
        </button>
      )}
    </>
  );

  return (
    // busy until the person's permissions are known: until then no action is offered
    <section aria-labelledby="orgs-title" aria-busy={!ready}>
      <PageHead id="orgs-title" title={t.organizations}>
        {can('org.create') && (
          <CreateInDialog id="org-create" label={t.newOrganization}>
            {(close) => <CreateOrganization onCancel={close} onCreated={(id) => go(`organizations/${id}`)} />}
          </CreateInDialog>
        )}
      </PageHead>
      <search className="filters">
        <SearchField id="org-search" label={t.searchByName} list={list} />
        <Field id="org-state" label={t.state}>
          <select id="org-state" value={state} onChange={(e) => list.refilter(setState)(Number(e.target.value))}>
            <option value={OrganizationState.UNSPECIFIED}>{t.any}</option>
            <option value={OrganizationState.ACTIVE}>{t.active}</option>
            <option value={OrganizationState.INACTIVE}>{t.inactive}</option>
          </select>
        </Field>
      </search>
      {actionError && <Failure error={actionError} />}
      <ListBody query={orgs} list={list} total={(d) => d.pagination?.totalResult}>
        {(data) => (
          <DataTable
            rows={data.organizations}
            empty={t.noMatch}
            rowKey={(o) => o.id}
            columns={[
              {
                header: t.name,
                cell: (o) => (
                  <a href={`/ui/console/organizations/${o.id}`} onClick={open(o)}>
                    {o.name}
                  </a>
                ),
              },
              { header: t.primaryDomain, cell: (o) => o.primaryDomain },
              { header: t.state, cell: (o) => (o.state === OrganizationState.ACTIVE ? t.active : t.inactive) },
              {
                header: t.created,
                cell: (o) => dateCell(o.creationDate && timestampDate(o.creationDate)),
                sort: list.sort,
              },
            ]}
            actions={actions}
          />
        )}
      </ListBody>
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

/** A new organization; once created, its page opens. */
function CreateOrganization(props: { onCancel: () => void; onCreated: (id: string) => void }) {
  const t = useWords();
  const [name, setName] = useState('');
  const create = useChange(OrganizationService.method.createOrganization);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate({ name }, { onSuccess: (r) => props.onCreated(r.organizationId) });
  };
  const nameError = fieldError(create.error, 'name');
  return (
    <form className="dialog-form" onSubmit={submit}>
      <TextField id="org-name" label={t.name} value={name} onChange={setName} error={nameError} />
      {create.error && !nameError && <Failure error={create.error} />}
      <DialogActions onCancel={props.onCancel} submit={t.create} pending={create.isPending} />
    </form>
  );
}
