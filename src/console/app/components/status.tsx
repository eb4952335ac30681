/** @jsxImportSource react */
import { ConnectError } from '@connectrpc/connect';
import { isPermissionDenied } from '../transport';
import { useWords } from '../context';

export function Loading() {
  const t = useWords();
  return (
    <p className="status" role="status">
      {t.loading}
    </p>
  );
}

/** An API error as the server worded it; a refusal says so plainly. */
export function Failure({ error }: { error: unknown }) {
  const t = useWords();
  const message = isPermissionDenied(error)
    ? t.noPermission
    : error instanceof ConnectError
      ? error.rawMessage
      : String(error);
  return (
    <div className="failure" role="alert">
      <h2>{t.errorTitle}</h2>
      <p>{message}</p>
    </div>
  );
}
