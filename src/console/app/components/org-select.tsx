/** @jsxImportSource react */
import { useQuery } from '@connectrpc/connect-query';
import { OrganizationService } from '../../../../gen/portcullis/org/v2/org_service_pb';
import { useWords } from '../context';
import { usePermissions } from '../permissions';
import { Field } from './field';

/** The organizations in which the signed-in person holds `permission`: where a form may create things. */
export function useOrganizationsWhere(permission: string) {
  const { can } = usePermissions();
  const orgs = useQuery(OrganizationService.method.listOrganizations, { pagination: { limit: 1000 } });
  return (orgs.data?.organizations ?? []).filter((o) => can(permission, { orgId: o.id }));
}

/** The names of the organizations the person sees, by id: for a list's organization column. */
export function useOrgNames(): Map<string, string> {
  const orgs = useQuery(OrganizationService.method.listOrganizations, { pagination: { limit: 1000 } });
  return new Map((orgs.data?.organizations ?? []).map((o) => [o.id, o.name]));
}

/** Chooses one of those organizations; the first is chosen until the person picks another. */
export function OrgSelect(props: {
  id: string;
  orgs: { id: string; name: string }[];
  value: string;
  onChange: (orgId: string) => void;
}) {
  const t = useWords();
  return (
    <Field id={props.id} label={t.organization}>
      <select id={props.id} value={props.value} onChange={(e) => props.onChange(e.target.value)}>
        {props.orgs.map((o) => (
          <option key={o.id} value={o.id}>
            {o.name}
          </option>
        ))}
      </select>
    </Field>
  );
}
