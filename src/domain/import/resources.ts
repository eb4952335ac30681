import { and, eq, ne } from 'drizzle-orm';
import type { Db } from '../../db/client';
import {
  administrators,
  applications,
  authorizations,
  orgDomains,
  projectRoles,
  projects,
} from '../../db/schema/index';
import { createAdministratorIn } from '../administrator/manage';
import { createApplicationIn } from '../application/commands';
import { createAuthorizationIn } from '../authorization/commands';
import { DomainError } from '../errors';
import { UnitOfWork, constraintError, uniqueViolation } from '../execute';
import { addOrganizationDomainIn, setPrimaryOrganizationDomainIn } from '../org/domains';
import { createProjectIn } from '../project/commands';
import { addProjectRoleIn } from '../project/roles';
import type { ImportError, ImportOrg, ImportedOrg } from './model';

/**
 * Imports the organization's projects, roles, applications, domains, administrators and
 * authorizations through the same scope-level commands the v2 API uses, inside the organization's
 * import transaction. Each item runs under a savepoint: one that fails becomes an errors[] entry and
 * leaves no trace, the others go on. Items that already exist (a re-run) are skipped and listed.
 */
export async function importResources(
  work: UnitOfWork,
  org: ImportOrg,
  imported: ImportedOrg,
  errors: ImportError[],
  checkDeadline: () => void,
): Promise<void> {
  const tx = work.tx;
  const orgId = org.orgId;
  const item = (type: string, id: string, write: (s: UnitOfWork) => Promise<unknown>) => {
    checkDeadline();
    return inSavepoint(work, write).then((key) => {
      if (key) errors.push({ type, id, key });
      return key === undefined;
    });
  };

  /** The project, unless removed, when it belongs to this organization. */
  const projectOfOrg = async (projectId: string) => {
    const [row] = await tx
      .select({ id: projects.id })
      .from(projects)
      .where(and(eq(projects.id, projectId), eq(projects.orgId, orgId), ne(projects.state, 'REMOVED')));
    return row !== undefined;
  };

  for (const p of org.projects) {
    const ok =
      (await projectOfOrg(p.projectId)) ||
      (await item('project', p.projectId, (s) =>
        createProjectIn(s, {
          orgId,
          id: p.projectId,
          name: p.name,
          projectRoleAssertion: p.projectRoleAssertion,
          authorizationRequired: p.authorizationRequired,
          projectAccessRequired: p.projectAccessRequired,
        }),
      ));
    if (ok) imported.projectIds.push(p.projectId);
  }

  // Roles and applications only go into projects of this organization.
  const owned = new Map<string, boolean>();
  const ownProject = async (projectId: string) => {
    if (!owned.has(projectId)) owned.set(projectId, await projectOfOrg(projectId));
    return owned.get(projectId)!;
  };

  for (const r of org.projectRoles) {
    const id = `${r.projectId}_${r.key}`;
    if (!(await ownProject(r.projectId))) {
      errors.push({ type: 'project_role', id, key: 'Errors.Project.NotFound' });
      continue;
    }
    const [found] = await tx
      .select({ key: projectRoles.key })
      .from(projectRoles)
      .innerJoin(projects, eq(projects.id, projectRoles.projectId))
      .where(and(eq(projectRoles.projectId, r.projectId), eq(projectRoles.key, r.key), eq(projects.orgId, orgId)));
    const ok = found || (await item('project_role', id, (s) => addProjectRoleIn(s, r)));
    if (ok) imported.projectRoles.push({ projectId: r.projectId, key: r.key });
  }

  for (const a of org.apps) {
    const [found] = await tx
      .select({ id: applications.id })
      .from(applications)
      .where(
        and(
          eq(applications.id, a.appId),
          eq(applications.projectId, a.projectId),
          eq(applications.orgId, orgId),
          ne(applications.state, 'REMOVED'),
        ),
      );
    const { config } = a;
    let ok: boolean;
    if (found) ok = true;
    else if (!(await ownProject(a.projectId))) {
      errors.push({ type: a.kind, id: a.appId, key: 'Errors.Project.NotFound' });
      ok = false;
    } else if ('invalid' in config) {
      errors.push({ type: a.kind, id: a.appId, key: config.invalid });
      ok = false;
    } else {
      // The generated client secret is not part of the import's answer: it is regenerated later.
      ok = await item(a.kind, a.appId, (s) =>
        createApplicationIn(s, { projectId: a.projectId, applicationId: a.appId, name: a.name, config }),
      );
    }
    if (ok) (a.kind === 'oidc_app' ? imported.oidcAppIds : imported.apiAppIds).push(a.appId);
  }

  for (const d of org.domains) {
    const domain = d.domain.trim().toLowerCase();
    const [found] = await tx
      .select({ isPrimary: orgDomains.isPrimary })
      .from(orgDomains)
      .where(and(eq(orgDomains.orgId, orgId), eq(orgDomains.domain, domain)));
    const ok = await item('domain', d.domain, async (s) => {
      if (!found) await addOrganizationDomainIn(s, { orgId, domain: d.domain, verified: d.verified });
      if (d.primary && !found?.isPrimary) await setPrimaryOrganizationDomainIn(s, { orgId, domain: d.domain });
    });
    if (ok) imported.domains.push(domain);
  }

  for (const m of org.orgMembers) {
    const [found] = await tx
      .select({ userId: administrators.userId })
      .from(administrators)
      .where(
        and(
          eq(administrators.userId, m.userId),
          eq(administrators.resourceType, 'ORG'),
          eq(administrators.resourceId, orgId),
        ),
      );
    const ok =
      found ||
      (await item('org_member', m.userId, (s) =>
        createAdministratorIn(s, { userId: m.userId, resource: { orgId }, roles: m.roles }),
      ));
    if (ok) imported.orgMembers.push(m.userId);
  }

  for (const g of org.userGrants) {
    const [found] = await tx
      .select({ id: authorizations.id })
      .from(authorizations)
      .where(
        and(
          eq(authorizations.userId, g.userId),
          eq(authorizations.projectId, g.projectId),
          eq(authorizations.orgId, orgId),
          ne(authorizations.state, 'REMOVED'),
        ),
      );
    const ok =
      found ||
      (await item('user_grant', `${g.userId}_${g.projectId}`, (s) =>
        createAuthorizationIn(s, { userId: g.userId, projectId: g.projectId, orgId, roleKeys: g.roleKeys }),
      ));
    if (ok) imported.userGrants.push({ userId: g.userId, projectId: g.projectId });
  }
}

/**
 * Runs one item's command in a savepoint (a nested transaction of the organization's one) with a
 * scope of its own, whose events are appended inside the savepoint. A rejected item rolls back to the
 * savepoint and its error key is returned. Anything that is not a rule of the domain (a timeout, a
 * lost connection) still fails the whole organization.
 */
export async function inSavepoint(
  work: UnitOfWork,
  write: (item: UnitOfWork) => Promise<unknown>,
): Promise<string | undefined> {
  // Events queued so far go first, so the item's scope reads the aggregates' current sequences.
  await work.flush();
  try {
    const item = await work.tx.transaction(async (sp) => {
      const item = new UnitOfWork(sp as unknown as Db, work.ctx);
      await write(item);
      await item.flush();
      return item;
    });
    work.adopt(item);
    return undefined;
  } catch (err) {
    const violation = uniqueViolation(err);
    const rule =
      err instanceof DomainError
        ? err
        : violation && violation !== 'events_aggregate_sequence_uq'
          ? constraintError(work.ctx.runtime, violation)
          : undefined;
    if (!rule) throw err;
    return rule.key;
  }
}
