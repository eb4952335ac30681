import { useQuery } from '@connectrpc/connect-query';
import { createContext, useContext, useState } from 'react';
import { OrganizationService } from '../../../gen/portcullis/org/v2/org_service_pb';
import { usePermissions } from './permissions';

export interface OrgScope {
  /** the organization the overview and the lists are limited to; undefined: all the person may see */
  orgId?: string;
  /** its name, once the organizations are listed */
  orgName?: string;
  /** the organizations to choose from (the switcher shows itself for two or more) */
  choices: { id: string; name: string }[];
  /** "all organizations" is a choice: the person's roles are on the instance */
  all: boolean;
  /**
   * The organization lists filter by: the chosen one where there is a choice to make (for someone whose
   * only organization it is, their lists hold nothing else anyway, including projects granted to it).
   */
  listOrgId?: string;
  choose: (orgId: string | undefined) => void;
}

const KEY = 'portcullis.org';

export const OrgScopeContext = createContext<OrgScope>({ choices: [], all: true, choose: () => {} });
export const useOrgScope = () => useContext(OrgScopeContext);

/**
 * Which organization the console shows. An instance administrator starts with all of them; someone
 * whose roles are on organizations starts with the first of those, since their view of the instance is
 * their organizations (an event search, for one, names the organization it reads). The choice lasts for
 * the browser tab.
 */
export function useOrgScopeState(): OrgScope {
  const { instanceWide, orgIds, ready } = usePermissions();
  const [chosen, setChosen] = useState<string | undefined>(() => sessionStorage.getItem(KEY) ?? undefined);
  const orgs = useQuery(
    OrganizationService.method.listOrganizations,
    { pagination: { limit: 1000, asc: true } },
    { enabled: ready && (instanceWide || orgIds.length > 0) },
  );
  const listed = (orgs.data?.organizations ?? []).map((o) => ({ id: o.id, name: o.name }));
  const choices = instanceWide ? listed : listed.filter((o) => orgIds.includes(o.id));
  // a stored choice of an organization since deleted falls back to the default once the list is in
  const known = (id: string | undefined) =>
    id !== undefined && (instanceWide ? !orgs.isSuccess || listed.some((o) => o.id === id) : orgIds.includes(id));
  const orgId = known(chosen) ? chosen : instanceWide ? undefined : orgIds[0];
  return {
    orgId,
    orgName: choices.find((o) => o.id === orgId)?.name,
    choices,
    all: instanceWide,
    listOrgId: instanceWide || orgIds.length > 1 ? orgId : undefined,
    choose(id) {
      if (id) sessionStorage.setItem(KEY, id);
      else sessionStorage.removeItem(KEY);
      setChosen(id);
    },
  };
}
