import type { Interceptor } from '@connectrpc/connect';
import type { Deps } from '../../deps';
import { whileReadingReplica } from '../../domain/cache';
import { principalKey, readDbKey } from '../context';

const user = (m: string) => `portcullis.user.v2.UserService/${m}`;
const org = (m: string) => `portcullis.org.v2.OrganizationService/${m}`;
const project = (m: string) => `portcullis.project.v2.ProjectService/${m}`;
const application = (m: string) => `portcullis.application.v2.ApplicationService/${m}`;
const instance = (m: string) => `portcullis.instance.v2.InstanceService/${m}`;

/**
 * The v2 reads that DATABASE_READ_URL serves: each only reads (a write there would fail, read-only),
 * fills no process cache, and may be a little behind — except for the caller's own writes, which the
 * read router waits for. `test/foundation/read-replica.test.ts` checks that every Get and List RPC is
 * here or in READS_ON_PRIMARY.
 */
export const READS_ON_REPLICA: ReadonlySet<string> = new Set([
  user('GetUserByID'),
  user('ListUsers'),
  user('ListKeys'),
  user('ListPersonalAccessTokens'),
  user('ListUserMetadata'),
  user('ListPasskeys'),
  user('ListAuthenticationMethodTypes'),
  user('ListAuthorizedApplications'),
  user('ListIDPLinks'),
  org('GetOrganization'),
  org('ListOrganizations'),
  org('ListOrganizationDomains'),
  org('ListOrganizationMetadata'),
  'portcullis.event.v2.EventService/ListEvents',
  instance('ListInstanceDomains'),
  instance('ListWebKeys'),
  project('GetProject'),
  project('ListProjects'),
  project('ListProjectRoles'),
  project('ListProjectGrants'),
  application('GetApplication'),
  application('ListApplications'),
  application('ListApplicationKeys'),
  'portcullis.authorization.v2.AuthorizationService/ListAuthorizations',
  'portcullis.administrator.v2.AdministratorService/ListAdministrators',
  'portcullis.idp.v2.IdentityProviderService/GetIdentityProvider',
  'portcullis.idp.v2.IdentityProviderService/ListIdentityProviders',
]);

/** The v2 reads that stay on the primary, and why. */
export const READS_ON_PRIMARY: Readonly<Record<string, string>> = {
  'portcullis.oidc.v2.OIDCService/GetAuthRequest': 'a login step: reads what the authorization endpoint just wrote',
  'portcullis.oidc.v2.OIDCService/GetDeviceAuthorizationRequest': 'a login step: reads a device request just made',
  'portcullis.session.v2.SessionService/GetSession': 'a login step: reads the session the login UI just changed',
  'portcullis.session.v2.SessionService/ListSessions':
    'a login step too, and sign-ins change sessions without a command of the caller',
  'portcullis.administrator.v2.AdministratorService/ListMyPermissions':
    'answered from the principal, which authentication read',
  'portcullis.event.v2.EventService/ListEventTypes': 'answered from the event registry, no database',
  [instance('GetInstance')]:
    'read through the instance cache (src/domain/instance/queries.ts); a replica must not fill it',
  [instance('GetInstanceSettings')]:
    'read through the settings cache that the OIDC layer and the login enforce; a replica must not fill it',
  'portcullis.settings.v2.SettingsService/GetLoginSettings':
    'read through the login policy cache that sign-ins enforce; a replica must not fill it',
  'portcullis.settings.v2.SettingsService/GetPasswordComplexitySettings':
    'read through the settings cache that password changes enforce; a replica must not fill it',
};

/**
 * Sends the reads of READS_ON_REPLICA where the read router says (a replica, or the primary when the
 * replicas lag or the caller wrote just now, and again on the primary when the replica fails), after
 * authentication, which reads the primary.
 */
export function readRoutingInterceptor(deps: Deps): Interceptor {
  return (next) => async (req) => {
    const reads = deps.reads;
    if (!reads || !READS_ON_REPLICA.has(`${req.service.typeName}/${req.method.name}`)) return next(req);
    return reads.read(req.contextValues.get(principalKey).userId, (db) => {
      req.contextValues.set(readDbKey, db);
      return db === deps.database.db ? next(req) : whileReadingReplica(() => next(req));
    });
  };
}
