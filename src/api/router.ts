import type { ConnectRouter, ServiceImpl } from '@connectrpc/connect';
import { AdministratorService } from '../../gen/portcullis/administrator/v2/administrator_service_pb';
import { ApplicationService } from '../../gen/portcullis/application/v2/application_service_pb';
import { AuthorizationService } from '../../gen/portcullis/authorization/v2/authorization_service_pb';
import { IdentityProviderService } from '../../gen/portcullis/idp/v2/identity_provider_service_pb';
import { InstanceService } from '../../gen/portcullis/instance/v2/instance_service_pb';
import { OIDCService } from '../../gen/portcullis/oidc/v2/oidc_service_pb';
import { OrganizationService } from '../../gen/portcullis/org/v2/org_service_pb';
import { ProjectService } from '../../gen/portcullis/project/v2/project_service_pb';
import { SessionService } from '../../gen/portcullis/session/v2/session_service_pb';
import { SettingsService } from '../../gen/portcullis/settings/v2/settings_service_pb';
import { UserService } from '../../gen/portcullis/user/v2/user_service_pb';
import type { Deps } from '../deps';
import { administratorHandlers } from './administrator/handlers';
import { applicationHandlers } from './application/handlers';
import { authorizationHandlers } from './authorization/handlers';
import { identityProviderHandlers } from './idp/handlers';
import { instanceHandlers } from './instance/handlers';
import { oidcHandlers } from './oidc/handlers';
import { orgHandlers } from './org/handlers';
import { projectHandlers } from './project/handlers';
import { registerReflection } from './reflection/service';
import { sessionHandlers } from './session/handlers';
import { settingsHandlers } from './settings/handlers';
import { authenticationMethodHandlers } from './user/authentication-methods-handlers';
import { authorizedApplicationHandlers } from './user/authorized-applications-handlers';
import { userHandlers } from './user/handlers';
import { idpHandlers } from './user/idp-handlers';
import { passkeyHandlers } from './user/passkey-handlers';
import { secondFactorHandlers } from './user/second-factor-handlers';
import { webKeyHandlers } from './webkey/handlers';
import { EventService } from '../../gen/portcullis/event/v2/event_service_pb';
import { eventHandlers } from './event/handlers';

/** Registers every v2 service. Nothing else lives here. */
export function routes(deps: Deps) {
  return (router: ConnectRouter) => {
    router.service(InstanceService, { ...instanceHandlers(deps), ...webKeyHandlers(deps) });
    router.service(OrganizationService, orgHandlers(deps));
    router.service(ProjectService, projectHandlers(deps));
    router.service(AuthorizationService, authorizationHandlers(deps));
    router.service(AdministratorService, administratorHandlers(deps));
    router.service(ApplicationService, applicationHandlers(deps));
    const users: ServiceImpl<typeof UserService> = {
      ...userHandlers(deps),
      ...secondFactorHandlers(deps),
      ...authenticationMethodHandlers(deps),
      ...authorizedApplicationHandlers(deps),
      ...passkeyHandlers(deps),
      ...idpHandlers(deps),
    };
    router.service(UserService, users);
    router.service(SessionService, sessionHandlers(deps));
    router.service(OIDCService, oidcHandlers(deps));
    router.service(SettingsService, settingsHandlers(deps));
    router.service(IdentityProviderService, identityProviderHandlers(deps));
    router.service(EventService, eventHandlers(deps));
    // Server reflection describes every service registered on this router (read at first use).
    registerReflection(router);
  };
}
