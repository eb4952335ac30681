import { Code, ConnectError, type Interceptor } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-web';

/**
 * The public v2 API over the Connect protocol on this origin, with the signed-in person's access
 * token: the console has no other way in, so it can do nothing a script with the same token cannot.
 */
export function apiTransport(accessToken: () => Promise<string>) {
  const bearer: Interceptor = (next) => async (req) => {
    req.header.set('Authorization', `Bearer ${await accessToken()}`);
    return next(req);
  };
  return createConnectTransport({ baseUrl: location.origin, interceptors: [bearer] });
}

export function isPermissionDenied(err: unknown): boolean {
  return err instanceof ConnectError && (err.code === Code.PermissionDenied || err.code === Code.NotFound);
}
