import type { ServiceImpl } from '@connectrpc/connect';
import { AuthenticationMethodType } from '../../../gen/portcullis/user/v2/authentication_methods_pb';
import type { UserService } from '../../../gen/portcullis/user/v2/user_service_pb';
import type { Deps } from '../../deps';
import { listAuthenticationMethodTypes } from '../../domain/policy/authentication-methods';
import { ctxOf } from '../context';

/** UserService: the user's authentication methods (the login policy's area). */
export function authenticationMethodHandlers(
  deps: Deps,
): Pick<ServiceImpl<typeof UserService>, 'listAuthenticationMethodTypes'> {
  return {
    async listAuthenticationMethodTypes(req, hc) {
      const types = await listAuthenticationMethodTypes(ctxOf(deps, hc), req.userId);
      return { authMethodTypes: types.map((t) => AuthenticationMethodType[t]) };
    },
  };
}
