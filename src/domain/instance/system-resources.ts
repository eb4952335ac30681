import { and, eq, ne } from 'drizzle-orm';
import { projects } from '../../db/schema/index';
import { failedPrecondition } from '../errors';
import type { UnitOfWork } from '../execute';

/**
 * The console and the account page sign in through one OIDC application in a system project, with ids
 * fixed so that every replica and every start finds the same one (console-client.ts creates them).
 * Removing either takes the console away from everyone, the operator included, so no API call
 * may delete them; `portcullis admin recover` recreates them where the database lost them.
 */
export const SYSTEM_PROJECT_ID = 'portcullis-system';
export const CONSOLE_APP_ID = 'portcullis-console';

/** For DeleteProject and DeleteOrganization: refuses the system project. */
export function refuseSystemProject(projectId: string): void {
  if (projectId === SYSTEM_PROJECT_ID) {
    throw failedPrecondition(
      'Errors.Project.System',
      'the system project cannot be deleted: it holds the console application, and without it nobody can sign in' +
        ' to the console',
    );
  }
}

/** For DeleteApplication: refuses the console application. */
export function refuseConsoleApplication(applicationId: string): void {
  if (applicationId === CONSOLE_APP_ID) {
    throw failedPrecondition(
      'Errors.Application.Console',
      'the console application cannot be deleted: without it nobody can sign in to the console' +
        ' (deactivate it to turn the console off)',
    );
  }
}

/** For DeleteOrganization: refuses the organization that holds the system project. */
export async function refuseOrgOfSystemProject(work: UnitOfWork, orgId: string): Promise<void> {
  const [project] = await work.tx
    .select({ orgId: projects.orgId })
    .from(projects)
    .where(and(eq(projects.id, SYSTEM_PROJECT_ID), ne(projects.state, 'REMOVED')));
  if (project?.orgId === orgId) {
    throw failedPrecondition(
      'Errors.Org.System',
      'this organization holds the system project with the console application, so it cannot be deleted',
    );
  }
}
