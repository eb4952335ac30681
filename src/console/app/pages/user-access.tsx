/** @jsxImportSource react */
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { useQuery } from '@connectrpc/connect-query';
import {
  AdministratorService,
  ResourceType,
} from '../../../../gen/portcullis/administrator/v2/administrator_service_pb';
import { AuthorizationService } from '../../../../gen/portcullis/authorization/v2/authorization_service_pb';
import type { User } from '../../../../gen/portcullis/user/v2/user_pb';
import { DataTable, dateCell } from '../components/data-table';
import { Failure } from '../components/status';
import { useWords } from '../context';
import { usePermissions } from '../permissions';

// Read only here: authorizations and administrator roles are changed in their own sections.

/** The user's authorizations: project and roles (shown with `authorization.read` on the user's organization). */
export function AuthorizationsPart({ user }: { user: User }) {
  const t = useWords();
  const { can } = usePermissions();
  const allowed = can('authorization.read', { orgId: user.organizationId });
  const list = useQuery(AuthorizationService.method.listAuthorizations, { userId: user.userId }, { enabled: allowed });
  if (!allowed) return null;
  return (
    <section aria-labelledby="authorizations-title">
      <h2 id="authorizations-title">{t.authorizations}</h2>
      {list.error && <Failure error={list.error} />}
      {list.data &&
        (list.data.authorizations.length === 0 ? (
          <p>{t.none}</p>
        ) : (
          <DataTable
            rows={list.data.authorizations}
            rowKey={(a) => a.id}
            columns={[
              { header: t.project, cell: (a) => a.projectId },
              { header: t.roles, cell: (a) => a.roleKeys.join(', ') },
              { header: t.created, cell: (a) => dateCell(a.creationDate && timestampDate(a.creationDate)) },
            ]}
          />
        ))}
    </section>
  );
}

/** The user's administrator roles (shown with `administrator.read` on the user's organization). */
export function MembershipsPart({ user }: { user: User }) {
  const t = useWords();
  const { can } = usePermissions();
  const allowed = can('administrator.read', { orgId: user.organizationId });
  const list = useQuery(AdministratorService.method.listAdministrators, { userId: user.userId }, { enabled: allowed });
  if (!allowed) return null;
  const where = (type: ResourceType) =>
    type === ResourceType.INSTANCE ? t.instance : type === ResourceType.ORGANIZATION ? t.organization : t.project;
  return (
    <section aria-labelledby="memberships-title">
      <h2 id="memberships-title">{t.memberships}</h2>
      {list.error && <Failure error={list.error} />}
      {list.data &&
        (list.data.administrators.length === 0 ? (
          <p>{t.none}</p>
        ) : (
          <DataTable
            rows={list.data.administrators}
            rowKey={(a) => `${a.resourceType}/${a.resourceId}`}
            columns={[
              { header: t.kind, cell: (a) => where(a.resourceType) },
              { header: t.id, cell: (a) => a.resourceId },
              { header: t.roles, cell: (a) => a.roles.join(', ') },
            ]}
          />
        ))}
    </section>
  );
}
