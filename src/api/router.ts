import type { ConnectRouter } from '@connectrpc/connect';
import { InstanceService } from '../../gen/portcullis/instance/v2/instance_service_pb';
import type { Deps } from '../deps';
import { instanceHandlers } from './instance/handlers';

/** Registers every v2 service. Nothing else lives here. */
export function routes(deps: Deps) {
  return (router: ConnectRouter) => {
    router.service(InstanceService, instanceHandlers(deps));
  };
}
