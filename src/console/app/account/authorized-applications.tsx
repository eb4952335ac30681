/** @jsxImportSource react */
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { useQuery } from '@connectrpc/connect-query';
import { UserService } from '../../../../gen/portcullis/user/v2/user_service_pb';
import { DataTable, dateCell } from '../components/data-table';
import { Failure, Loading } from '../components/status';
import { useUser, useWords } from '../context';

/**
 * The applications the user signed in to that still hold a grant (ListAuthorizedApplications). A grant
 * ends with its session: signing out a session on the sessions page takes its applications off here.
 */
export function AuthorizedApplications() {
  const t = useWords();
  const { userId } = useUser();
  const apps = useQuery(UserService.method.listAuthorizedApplications, { userId });
  return (
    <section aria-labelledby="apps-title">
      <h1 id="apps-title">{t.authorizedApps}</h1>
      {apps.isPending ? (
        <Loading />
      ) : apps.error ? (
        <Failure error={apps.error} />
      ) : apps.data.applications.length === 0 ? (
        <p>{t.noAuthorizedApps}</p>
      ) : (
        <DataTable
          rows={apps.data.applications}
          rowKey={(a) => a.applicationId}
          columns={[
            { header: t.name, cell: (a) => a.name },
            { header: t.scopes, cell: (a) => a.scopes.join(' ') },
            {
              header: t.lastAuthorized,
              cell: (a) => dateCell(a.lastAuthorized && timestampDate(a.lastAuthorized)),
            },
          ]}
        />
      )}
    </section>
  );
}
