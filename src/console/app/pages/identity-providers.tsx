/** @jsxImportSource react */
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { useQuery } from '@connectrpc/connect-query';
import { useState } from 'react';
import { type IdentityProvider, IdentityProviderType } from '../../../../gen/portcullis/idp/v2/identity_provider_pb';
import { IdentityProviderService } from '../../../../gen/portcullis/idp/v2/identity_provider_service_pb';
import { OrganizationService } from '../../../../gen/portcullis/org/v2/org_service_pb';
import { Confirm } from '../components/confirm';
import { CreateInDialog, Dialog, PageHead } from '../components/dialog';
import { DataTable, dateCell } from '../components/data-table';
import { Field } from '../components/field';
import { ListBody, useListState } from '../components/listing';
import { Failure } from '../components/status';
import { useWords } from '../context';
import { useChange } from '../mutations';
import { usePermissions } from '../permissions';
import { useOrgScope } from '../scope';
import { IdpForm } from './idp-form';
import { KINDS } from './idp-kinds';

const ALL = { pagination: { limit: 1000 } };

const PROTOCOLS: Record<number, string> = {
  [IdentityProviderType.OIDC]: 'OIDC',
  [IdentityProviderType.OAUTH]: 'OAuth',
  [IdentityProviderType.SAML]: 'SAML',
  [IdentityProviderType.LDAP]: 'LDAP',
};

const typeName = (p: IdentityProvider) =>
  `${p.config.case ? KINDS[p.config.case].name : ''} (${PROTOCOLS[p.type] ?? '?'})`;

/**
 * Identity providers: the instance's, or an organization's with the instance's, with their kind; every kind
 * is created, edited and deleted here. Secrets never come back.
 */
export function IdentityProviders() {
  const t = useWords();
  const { can, ready } = usePermissions();
  const list = useListState();
  const orgs = (useQuery(OrganizationService.method.listOrganizations, ALL).data?.organizations ?? []).filter((o) =>
    can('org.read', { orgId: o.id }),
  );
  // '' is the instance: shown to those who may read it, else the first organization
  const [owner, setOwner] = useState<string>();
  const scope = useOrgScope();
  const ownerId = owner ?? scope.listOrgId ?? (can('iam.read') ? '' : (orgs[0]?.id ?? ''));
  const idps = useQuery(IdentityProviderService.method.listIdentityProviders, {
    pagination: list.pagination,
    organizationId: ownerId,
  });
  const [editing, setEditing] = useState<IdentityProvider>();
  const [doomed, setDoomed] = useState<IdentityProvider>();
  const remove = useChange(IdentityProviderService.method.deleteIdentityProvider, () => setDoomed(undefined));
  const orgName = new Map(orgs.map((o) => [o.id, o.name]));
  const mayWrite = (p: { organizationId: string }) =>
    p.organizationId ? can('org.write', { orgId: p.organizationId }) : can('iam.write');
  return (
    // busy until the person's permissions are known: until then no action is offered
    <section aria-labelledby="idps-title" aria-busy={!ready}>
      <PageHead id="idps-title" title={t.identityProviders}>
        {mayWrite({ organizationId: ownerId }) && (
          <CreateInDialog id="idp-create" label={t.newIdp}>
            {(close) => <IdpForm key={ownerId} organizationId={ownerId} onDone={close} />}
          </CreateInDialog>
        )}
      </PageHead>
      {editing && (
        <Dialog id="idp-edit" title={t.editIdp(editing.name)} onClose={() => setEditing(undefined)}>
          <IdpForm key={editing.id} existing={editing} onDone={() => setEditing(undefined)} />
        </Dialog>
      )}
      <search className="filters">
        <Field id="idp-owner" label={t.providersOf}>
          <select id="idp-owner" value={ownerId} onChange={(e) => list.refilter(setOwner)(e.target.value)}>
            {can('iam.read') && <option value="">{t.instance}</option>}
            {orgs.map((o) => (
              <option key={o.id} value={o.id}>
                {o.name}
              </option>
            ))}
          </select>
        </Field>
      </search>
      {remove.error && <Failure error={remove.error} />}
      <ListBody query={idps} list={list} total={(d) => d.pagination?.totalResult}>
        {(data) => (
          <DataTable
            rows={data.result}
            empty={t.emptyIdps}
            rowKey={(p) => p.id}
            columns={[
              { header: t.name, cell: (p) => p.name },
              { header: t.kind, cell: typeName },
              { header: t.owner, cell: (p) => (p.organizationId ? (orgName.get(p.organizationId) ?? '') : t.instance) },
              { header: t.state, cell: () => t.active },
              {
                header: t.created,
                cell: (p) => dateCell(p.creationDate && timestampDate(p.creationDate)),
                sort: list.sort,
              },
            ]}
            actions={(p) =>
              mayWrite(p) && (
                <>
                  <button type="button" onClick={() => setEditing(p)}>
                    {t.edit}
                  </button>
                  <button type="button" className="danger" onClick={() => setDoomed(p)}>
                    {t.delete}
                  </button>
                </>
              )
            }
          />
        )}
      </ListBody>
      {doomed && (
        <Confirm
          question={t.confirmDeleteIdp(doomed.name)}
          action={t.delete}
          onConfirm={() => remove.mutate({ id: doomed.id })}
          onCancel={() => setDoomed(undefined)}
        />
      )}
    </section>
  );
}
