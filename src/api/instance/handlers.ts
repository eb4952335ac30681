import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { ServiceImpl } from '@connectrpc/connect';
import { InstanceService } from '../../../gen/portcullis/instance/v2/instance_service_pb';
import type { Deps } from '../../deps';
import { permissionDenied } from '../../domain/errors';
import { getInstance } from '../../domain/instance/queries';
import { ctxOf } from '../context';

export function instanceHandlers(deps: Deps): Partial<ServiceImpl<typeof InstanceService>> {
  return {
    async getInstance(_req, hc) {
      const ctx = ctxOf(deps, hc);
      if (!ctx.principal.canInstance('iam.read')) throw permissionDenied('needs iam.read on the instance');
      const i = await getInstance(ctx);
      return {
        instance: {
          id: i.id,
          name: i.name,
          domain: i.domain,
          domains: i.domains,
          defaultOrganizationId: i.defaultOrgId,
          creationDate: timestampFromDate(i.createdAt),
          changeDate: timestampFromDate(i.changedAt),
        },
      };
    },
  };
}
