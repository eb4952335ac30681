import { type SQL, and, eq, exists, inArray, ne, sql } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import { orgDomains, orgMetadata, orgs } from '../../db/schema/index';
import type { Ctx } from '../context';
import { type ListResult, type PageRequest, emptyList, page } from '../list/page';
import { listRows } from '../list/query';
import { type TextMethod, textCondition } from '../list/text-filter';
import { type Org, orgFor } from './access';

export type OrgFilter =
  | { name: string; method?: TextMethod }
  | { domain: string; method?: TextMethod }
  | { state: 'ACTIVE' | 'INACTIVE' }
  | { ids: string[] };

export async function getOrganization(ctx: Ctx, id: string): Promise<Org> {
  return orgFor(ctx.db, ctx.principal, id, 'org.read');
}

/** The organizations the caller may read, filtered and paged in SQL. */
export async function listOrganizations(
  ctx: Ctx,
  req: { filters?: OrgFilter[]; page?: PageRequest },
): Promise<ListResult<Org>> {
  const p = page(req.page);
  const scope = ctx.principal.orgScope('org.read');
  if (scope !== 'all' && scope.length === 0) return emptyList(p);
  const conds: (SQL | undefined)[] = [ne(orgs.state, 'REMOVED')];
  if (scope !== 'all') conds.push(inArray(orgs.id, scope));
  for (const f of req.filters ?? []) {
    if ('name' in f) conds.push(textCondition(orgs.name, f.name, f.method));
    else if ('domain' in f)
      conds.push(
        exists(
          ctx.db
            .select({ one: sql`1` })
            .from(orgDomains)
            .where(and(eq(orgDomains.orgId, orgs.id), textCondition(orgDomains.domain, f.domain, f.method))),
        ),
      );
    else if ('state' in f) conds.push(eq(orgs.state, f.state));
    else if ('ids' in f) conds.push(f.ids.length ? inArray(orgs.id, f.ids) : sql`false`);
  }
  return listRows(ctx.db, orgs, and(...conds), p, orgs.createdAt, orgs.id);
}

export type OrgDomain = typeof orgDomains.$inferSelect;
export type OrgMetadata = typeof orgMetadata.$inferSelect;

export function listOrganizationDomains(ctx: Ctx, req: OrgListRequest): Promise<ListResult<OrgDomain>> {
  return listOfOrganization(ctx, req, orgDomains, orgDomains.domain);
}

export function listOrganizationMetadata(ctx: Ctx, req: OrgListRequest): Promise<ListResult<OrgMetadata>> {
  return listOfOrganization(ctx, req, orgMetadata, orgMetadata.key);
}

type OrgListRequest = { orgId: string; page?: PageRequest };

/** What an organization holds (its domains, its metadata), for a caller who may read the organization. */
async function listOfOrganization<T extends typeof orgDomains | typeof orgMetadata>(
  ctx: Ctx,
  req: OrgListRequest,
  table: T,
  orderBy: PgColumn,
): Promise<ListResult<T['$inferSelect']>> {
  await orgFor(ctx.db, ctx.principal, req.orgId, 'org.read');
  return listRows(ctx.db, table, eq(table.orgId, req.orgId), page(req.page), orderBy);
}
