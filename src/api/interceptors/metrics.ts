import { Code, ConnectError, type Interceptor } from '@connectrpc/connect';
import { rpcDuration } from '../../http/metrics';

/** Latency and result code of every RPC, by procedure. */
export function metricsInterceptor(): Interceptor {
  return (next) => async (req) => {
    const started = process.hrtime.bigint();
    const procedure = `${req.service.typeName}/${req.method.name}`;
    try {
      const res = await next(req);
      rpcDuration.observe({ procedure, code: 'ok' }, Number(process.hrtime.bigint() - started) / 1e9);
      return res;
    } catch (err) {
      const code = err instanceof ConnectError ? Code[err.code] : 'Internal';
      rpcDuration.observe({ procedure, code }, Number(process.hrtime.bigint() - started) / 1e9);
      throw err;
    }
  };
}
