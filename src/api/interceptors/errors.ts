import type { DescMethod, DescService } from '@bufbuild/protobuf';
import { Code, ConnectError, type Interceptor } from '@connectrpc/connect';
import type { Logger } from 'pino';
import { ErrorInfoSchema } from '../../../gen/google/rpc/error_details_pb';
import { asDomainError, type DomainError, type DomainErrorKind, fieldOf, LimitError } from '../../domain/errors';

const CODES: Record<DomainErrorKind, Code> = {
  invalid_argument: Code.InvalidArgument,
  not_found: Code.NotFound,
  already_exists: Code.AlreadyExists,
  permission_denied: Code.PermissionDenied,
  unauthenticated: Code.Unauthenticated,
  failed_precondition: Code.FailedPrecondition,
  aborted: Code.Aborted,
  resource_exhausted: Code.ResourceExhausted,
  deadline_exceeded: Code.DeadlineExceeded,
  unavailable: Code.Unavailable,
  internal: Code.Internal,
};

/** The codes a 500 answers (Connect: internal, unknown, data_loss; gRPC: the same statuses). */
const SERVER_FAULTS = new Set([Code.Internal, Code.Unknown, Code.DataLoss]);

/**
 * The one mapping from domain errors to Connect codes (a database outage is `unavailable`, see
 * asDomainError). Anything unexpected becomes `internal error`, its cause kept for the log (see
 * errorInterceptor), never echoed.
 */
function toConnectError(err: unknown): ConnectError {
  if (err instanceof ConnectError) return err;
  const known = asDomainError(err);
  if (known) {
    const headers = known instanceof LimitError ? { 'retry-after': String(known.retryAfterSeconds) } : undefined;
    return new ConnectError(known.message, CODES[known.kind], headers, [errorInfo(known)]);
  }
  return new ConnectError('internal error', Code.Internal, undefined, undefined, err);
}

/**
 * google.rpc.ErrorInfo: clients branch on `reason` (the stable `Errors.…` key, the v1 API's message id)
 * and `metadata.field` instead of parsing the message.
 */
function errorInfo(err: DomainError) {
  const field = fieldOf(err);
  return { desc: ErrorInfoSchema, value: { reason: err.key, domain: 'portcullis', metadata: field ? { field } : {} } };
}

/**
 * Maps what a handler throws (toConnectError), and logs the cause of every server fault of the call.
 * Some happen after the handler returned, outside any interceptor: Connect encoding the answer (a
 * Struct holding undefined). Connect ends every call's context with the error it answers, so the
 * context's signal reports those too. The cause goes to the log only: a handler's unexpected error
 * reaches the client as `internal error`.
 */
export function errorInterceptor(log: Logger): Interceptor {
  return (next) => async (req) => {
    req.signal.addEventListener('abort', () => logServerFault(log, req, req.signal.reason), { once: true });
    try {
      return await next(req);
    } catch (err) {
      throw toConnectError(err);
    }
  };
}

function logServerFault(log: Logger, call: { service: DescService; method: DescMethod }, reason: unknown): void {
  if (!(reason instanceof ConnectError) || !SERVER_FAULTS.has(reason.code)) return;
  const procedure = `/${call.service.typeName}/${call.method.name}`;
  log.error({ err: reason.cause ?? reason, code: Code[reason.code], procedure }, 'server fault in RPC');
}
