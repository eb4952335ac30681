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

/**
 * The one mapping from domain errors to Connect codes (a database outage is `unavailable`, see
 * asDomainError). Anything unexpected is logged, never echoed.
 */
export function toConnectError(err: unknown, log: Logger, procedure: string): ConnectError {
  if (err instanceof ConnectError) return err;
  const known = asDomainError(err);
  if (known) {
    const headers = known instanceof LimitError ? { 'retry-after': String(known.retryAfterSeconds) } : undefined;
    return new ConnectError(known.message, CODES[known.kind], headers, [errorInfo(known)]);
  }
  log.error({ err, procedure }, 'unexpected error in RPC');
  return new ConnectError('internal error', Code.Internal);
}

/**
 * google.rpc.ErrorInfo: clients branch on `reason` (the stable `Errors.…` key, the v1 API's message id)
 * and `metadata.field` instead of parsing the message.
 */
function errorInfo(err: DomainError) {
  const field = fieldOf(err);
  return { desc: ErrorInfoSchema, value: { reason: err.key, domain: 'portcullis', metadata: field ? { field } : {} } };
}

export function errorInterceptor(log: Logger): Interceptor {
  return (next) => async (req) => {
    try {
      return await next(req);
    } catch (err) {
      throw toConnectError(err, log, req.url);
    }
  };
}
