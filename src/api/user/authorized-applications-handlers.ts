import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { ServiceImpl } from '@connectrpc/connect';
import type { UserService } from '../../../gen/portcullis/user/v2/user_service_pb';
import type { Deps } from '../../deps';
import { listAuthorizedApplications } from '../../domain/user/authorized-applications';
import { ctxOf } from '../context';

/** UserService: the applications holding a live grant of the user (the account page lists them). */
export function authorizedApplicationHandlers(
  deps: Deps,
): Pick<ServiceImpl<typeof UserService>, 'listAuthorizedApplications'> {
  return {
    async listAuthorizedApplications(req, hc) {
      const list = await listAuthorizedApplications(ctxOf(deps, hc), req.userId);
      return {
        applications: list.map((a) => ({
          ...a,
          firstAuthorized: timestampFromDate(a.firstAuthorized),
          lastAuthorized: timestampFromDate(a.lastAuthorized),
        })),
      };
    },
  };
}
