import { eq } from 'drizzle-orm';
import { systemPrincipal } from '../authz/principal';
import type { Database } from '../db/client';
import { applications, projects } from '../db/schema/index';
import { createApplicationIn, updateApplicationIn } from '../domain/application/commands';
import type { OidcAppConfig } from '../domain/application/model';
import { execute } from '../domain/execute';
import { findInstance } from '../domain/instance/queries';
import { CONSOLE_APP_ID, SYSTEM_PROJECT_ID } from '../domain/instance/system-resources';
import { createProjectIn } from '../domain/project/commands';

/**
 * The console and the account page are OIDC public clients of the instance like any other: one
 * application in a system project, with ids fixed so that every replica and every start finds the same
 * one. They hold no privilege of their own beyond being the instance's API client (oidc.api_access):
 * what a signed-in person may do is what the API lets their token do.
 */
export { CONSOLE_APP_ID, SYSTEM_PROJECT_ID };

export const consoleRedirectUri = (externalUrl: string) => `${externalUrl}/ui/console/callback`;
export const accountRedirectUri = (externalUrl: string) => `${externalUrl}/ui/account/callback`;

function consoleConfig(externalUrl: string): Partial<OidcAppConfig> {
  const loopback = /^http:\/\/(localhost|127\.0\.0\.1|\[::1\])(:|\/|$)/.test(externalUrl);
  return {
    redirectUris: [consoleRedirectUri(externalUrl), accountRedirectUri(externalUrl)],
    postLogoutRedirectUris: [`${externalUrl}/ui/console/`, `${externalUrl}/ui/account/`],
    responseTypes: ['CODE'],
    grantTypes: ['AUTHORIZATION_CODE', 'REFRESH_TOKEN'],
    applicationType: 'USER_AGENT',
    authMethodType: 'NONE',
    accessTokenType: 'BEARER',
    // An operator who serves the instance over plain http on a real host chose to; the console follows.
    developmentMode: externalUrl.startsWith('http:') && !loopback,
    // The console is the instance's own API client (domain/oidc/api-clients.ts): its tokens carry the
    // API audience. Consoles created before the setting existed got it from a migration.
    apiAccess: true,
  };
}

/**
 * Creates the console's client on a start that finds none, and points its redirect URIs at the
 * configured external URL when that changed. A console application that an administrator deactivated
 * stays deactivated: that is how the console is turned off. Returns its client id, or undefined when
 * it is not active.
 */
export async function ensureConsoleClient(database: Database, externalUrl: string): Promise<string | undefined> {
  return database.withLock('console-client', async (db) => {
    const instance = await findInstance(db);
    if (!instance?.defaultOrgId) return undefined;
    const ctx = { db, instanceId: instance.id, principal: systemPrincipal(instance.id, 'console'), service: 'console' };
    const [app] = await db.select().from(applications).where(eq(applications.id, CONSOLE_APP_ID));
    const wanted = consoleConfig(externalUrl);
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
