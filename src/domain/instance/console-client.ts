import { and, eq } from 'drizzle-orm';
import { systemPrincipal } from '../../authz/principal';
import type { Db } from '../../db/client';
import type { Deps } from '../../deps';
import { applications, projects } from '../../db/schema/index';
import { createApplicationIn, updateApplicationIn } from '../application/commands';
import type { OidcAppConfig } from '../application/model';
import { execute } from '../execute';
import { createProjectIn } from '../project/commands';
import { findInstance } from './queries';
import { CONSOLE_APP_ID, SYSTEM_PROJECT_ID } from './system-resources';

/**
 * Creates the console's application (and the system project it lives in) on a start that finds none, and
 * gives it `wanted`'s redirect URIs, post-logout URIs and development mode when its redirect URIs differ
 * (the external URL changed). A console application that an administrator deactivated stays deactivated:
 * that is how the console is turned off. Returns its client id, or undefined when it is not active.
 */
export async function ensureConsoleApplication(
  { database, runtime }: Pick<Deps, 'database' | 'runtime'>,
  wanted: Partial<OidcAppConfig>,
): Promise<string | undefined> {
  return database.withLock('console-client', async (db) => {
    const instance = await findInstance(db);
    if (!instance?.defaultOrgId) return undefined;
    const ctx = {
      db,
      runtime,
      instanceId: instance.id,
      principal: systemPrincipal(instance.id, 'console'),
      service: 'console',
    };
    const [app] = await db.select().from(applications).where(eq(applications.id, CONSOLE_APP_ID));
    if (!app) {
      const [project] = await db.select({ id: projects.id }).from(projects).where(eq(projects.id, SYSTEM_PROJECT_ID));
      const created = await execute(ctx, async (work) => {
        if (!project)
          await createProjectIn(work, { orgId: instance.defaultOrgId!, id: SYSTEM_PROJECT_ID, name: 'Portcullis' });
        return createApplicationIn(work, {
          projectId: SYSTEM_PROJECT_ID,
          applicationId: CONSOLE_APP_ID,
          name: 'Console',
          config: { type: 'OIDC', oidc: wanted },
        });
      });
      return created.clientId;
    }
    if (app.state !== 'ACTIVE') return undefined;
    const same = JSON.stringify(app.oidc?.redirectUris) === JSON.stringify(wanted.redirectUris);
    if (!same) {
      await execute(ctx, (work) =>
        updateApplicationIn(work, {
          applicationId: CONSOLE_APP_ID,
          config: {
            type: 'OIDC',
            oidc: {
              redirectUris: wanted.redirectUris,
              postLogoutRedirectUris: wanted.postLogoutRedirectUris,
              developmentMode: wanted.developmentMode,
            },
          },
        }),
      );
    }
    return app.clientId ?? undefined;
  });
}

/** The console's client id, or undefined while the console is turned off (its application deactivated). */
export async function activeConsoleClientId(db: Db): Promise<string | undefined> {
  const [row] = await db
    .select({ clientId: applications.clientId })
    .from(applications)
    .where(and(eq(applications.id, CONSOLE_APP_ID), eq(applications.state, 'ACTIVE')));
  return row?.clientId ?? undefined;
}
