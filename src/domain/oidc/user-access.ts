import { signInRefusal, TOKEN_USE } from '../session/may-sign-in';
import { and, eq } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { projects } from '../../db/schema/index';
import { findProjectGrant } from '../project/access';
import { hasAuthorization } from './claims';
import type { OidcClient } from './clients';

/**
 * The one rule for "may this user get tokens for this client now": at login, at the code exchange,
 * at every refresh and at a token exchange. An active user of an active organization, an active
 * application of an active project, and the project's access and authorization requirements met.
 * (Tokens already issued obey the same rule when they are looked up: token-lookup.ts.)
 * Returns why not, or undefined when the user may.
 */
export async function refusalFor(
  db: Db,
  user: { id: string; orgId: string; state: string; orgState: string },
  client: OidcClient,
): Promise<string | undefined> {
  const refusal = signInRefusal(user, TOKEN_USE);
  if (refusal) return refusal;
  if (!client.active) return 'the application is not active';
  if (client.project.projectAccessRequired && !(await orgHasProjectAccess(db, user.orgId, client.projectId))) {
    return "the user's organization has no access to the project";
  }
  if (client.project.authorizationRequired && !(await hasAuthorization(db, user.id, client.projectId))) {
    return 'the user has no authorization for the project';
  }
  return undefined;
}

/** project_access_required: the user's organization owns the project or holds an active grant of it. */
async function orgHasProjectAccess(db: Db, orgId: string, projectId: string): Promise<boolean> {
  const [own] = await db
    .select({ id: projects.id })
    .from(projects)
    .where(and(eq(projects.id, projectId), eq(projects.orgId, orgId)));
  if (own) return true;
  return (await findProjectGrant(db, projectId, orgId))?.state === 'ACTIVE';
}
