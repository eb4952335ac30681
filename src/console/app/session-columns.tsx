/** @jsxImportSource react */
import type { Session } from '../../../gen/portcullis/session/v2/session_service_pb';
import type { Column } from './components/data-table';
import type { Words } from './i18n';
import { browserName } from './user-agent';

/**
 * Where a session signed in from, as columns of a list of sessions: the browser, the address and the
 * application. Sessions a login UI created through the API have none of them: a dash says so.
 */
export function originColumns(t: Words): Column<Session>[] {
  const or = (v: string) => v || '–';
  return [
    { header: t.browser, cell: (s) => <span title={s.userAgent}>{or(browserName(s.userAgent, t.onSystem))}</span> },
    { header: t.address, cell: (s) => or(s.ipAddress) },
    { header: t.application, cell: (s) => or(s.applicationName || s.clientId) },
  ];
}
