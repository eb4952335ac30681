import type { Deps } from '../deps';
import type { OidcAppConfig } from '../domain/application/model';
import { ensureConsoleApplication } from '../domain/instance/console-client';

/**
 * The console and the account page are OIDC public clients of the instance like any other: one
 * application in a system project, with ids fixed so that every replica and every start finds the same
 * one. They hold no privilege of their own beyond being the instance's API client (oidc.api_access):
 * what a signed-in person may do is what the API lets their token do.
 */
const consoleRedirectUri = (externalUrl: string) => `${externalUrl}/ui/console/callback`;
const accountRedirectUri = (externalUrl: string) => `${externalUrl}/ui/account/callback`;

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
 * configured external URL when that changed (src/domain/instance/console-client.ts). Returns its client
 * id, or undefined when an administrator turned the console off.
 */
export function ensureConsoleClient(
  server: Pick<Deps, 'database' | 'runtime'>,
  externalUrl: string,
): Promise<string | undefined> {
  return ensureConsoleApplication(server, consoleConfig(externalUrl));
}
