/** @jsxImportSource react */
import { useQuery } from '@connectrpc/connect-query';
import { useState } from 'react';
import type { IDPLink } from '../../../../gen/portcullis/user/v2/identity_providers_pb';
import { UserService } from '../../../../gen/portcullis/user/v2/user_service_pb';
import { Confirm } from '../components/confirm';
import { DataTable } from '../components/data-table';
import { Failure, Loading } from '../components/status';
import { useUser, useWords } from '../context';
import { useChange } from '../mutations';

/**
 * The accounts at upstream identity providers that sign the user in (ListIDPLinks), each unlinkable.
 * The provider shows by its id: reading a provider's name needs an administrator's permission.
 */
export function LinkedAccounts() {
  const t = useWords();
  const { userId } = useUser();
  const links = useQuery(UserService.method.listIDPLinks, { userId, pagination: { limit: 100 } });
  const [removing, setRemoving] = useState<IDPLink>();
  const remove = useChange(UserService.method.removeIDPLink, () => setRemoving(undefined));
  const label = (l: IDPLink) => l.userName || l.userId;
  return (
    <section aria-labelledby="links-title">
      <h1 id="links-title">{t.linkedAccounts}</h1>
      {remove.error && <Failure error={remove.error} />}
      {links.isPending ? (
        <Loading />
      ) : links.error ? (
        <Failure error={links.error} />
      ) : links.data.result.length === 0 ? (
        <p>{t.noLinkedAccounts}</p>
      ) : (
        <DataTable
          rows={links.data.result}
          rowKey={(l) => `${l.idpId}/${l.userId}`}
          columns={[
            { header: t.provider, cell: (l) => <code>{l.idpId}</code> },
            { header: t.upstreamAccount, cell: label },
          ]}
          actions={(l) => (
            <button type="button" className="danger" onClick={() => setRemoving(l)}>
              {t.unlink}
            </button>
          )}
        />
      )}
      {removing && (
        <Confirm
          question={t.confirmUnlink(label(removing))}
          action={t.unlink}
          onConfirm={() => remove.mutate({ userId, idpId: removing.idpId, linkedUserId: removing.userId })}
          onCancel={() => setRemoving(undefined)}
        />
      )}
    </section>
  );
}
