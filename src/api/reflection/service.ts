import type { DescService } from '@bufbuild/protobuf';
import type { ConnectRouter } from '@connectrpc/connect';
import {
  ServerReflection as ReflectionV1,
  type ServerReflectionRequest as RequestV1,
} from '../../../gen/grpc/reflection/v1/reflection_pb';
import {
  ServerReflection as ReflectionV1alpha,
  type ServerReflectionRequest as RequestV1alpha,
} from '../../../gen/grpc/reflection/v1alpha/reflection_pb';
import { ApiDescriptions } from './descriptions';

const NOT_FOUND = 5;

/** The answer part of a ServerReflectionResponse; v1 and v1alpha share it field for field. */
type Answer =
  | { case: 'fileDescriptorResponse'; value: { fileDescriptorProto: Uint8Array[] } }
  | { case: 'allExtensionNumbersResponse'; value: { baseTypeName: string; extensionNumber: number[] } }
  | { case: 'listServicesResponse'; value: { service: { name: string }[] } }
  | { case: 'errorResponse'; value: { errorCode: number; errorMessage: string } };

const notFound = (message: string): Answer => ({
  case: 'errorResponse',
  value: { errorCode: NOT_FOUND, errorMessage: message },
});

function answer(api: ApiDescriptions, req: RequestV1 | RequestV1alpha): Answer {
  const q = req.messageRequest;
  switch (q.case) {
    case 'listServices':
      return { case: 'listServicesResponse', value: { service: api.serviceNames.map((name) => ({ name })) } };
    case 'fileByFilename': {
      const files = api.fileWithImports(q.value);
      return files
        ? { case: 'fileDescriptorResponse', value: { fileDescriptorProto: files } }
        : notFound(`file "${q.value}" not found`);
    }
    case 'fileContainingSymbol': {
      const files = api.fileContainingSymbol(q.value);
      return files
        ? { case: 'fileDescriptorResponse', value: { fileDescriptorProto: files } }
        : notFound(`symbol "${q.value}" not found`);
    }
    case 'fileContainingExtension':
      // The API declares no extensions.
      return notFound(`extension ${q.value.extensionNumber} of "${q.value.containingType}" not found`);
    case 'allExtensionNumbersOfType':
      return api.hasMessage(q.value)
        ? { case: 'allExtensionNumbersResponse', value: { baseTypeName: q.value, extensionNumber: [] } }
        : notFound(`type "${q.value}" not found`);
    default:
      return { case: 'errorResponse', value: { errorCode: 3, errorMessage: 'the request names no question' } };
  }
}

/**
 * gRPC server reflection (v1 and the older v1alpha) over a bidirectional stream: every request gets
 * one response. It describes every service registered on the router, read when the first question
 * arrives, so services registered after this call are included.
 */
export function registerReflection(router: ConnectRouter): void {
  let api: ApiDescriptions | undefined;
  const describe = () => {
    if (!api) {
      const services: DescService[] = router.handlers.map((h) => h.service);
      api = new ApiDescriptions(services);
    }
    return api;
  };
  router.service(ReflectionV1, {
    async *serverReflectionInfo(requests) {
      for await (const req of requests) {
        yield { validHost: req.host, originalRequest: req, messageResponse: answer(describe(), req) };
      }
    },
  });
  router.service(ReflectionV1alpha, {
    async *serverReflectionInfo(requests) {
      for await (const req of requests) {
        yield { validHost: req.host, originalRequest: req, messageResponse: answer(describe(), req) };
      }
    },
  });
}
