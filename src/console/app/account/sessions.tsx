/** @jsxImportSource react */
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { useQuery } from '@connectrpc/connect-query';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { SessionService } from '../../../../gen/portcullis/session/v2/session_service_pb';
import { Confirm } from '../components/confirm';
import { DataTable } from '../components/data-table';
import { Failure, Loading } from '../components/status';
import { useUser, useWords } from '../context';
import { useChange } from '../mutations';
import { originColumns } from '../session-columns';

const when = (d: Date | undefined) => (d ? d.toLocaleString(document.documentElement.lang) : '');

/**
 * The user's live login sessions (ListSessions with their own id) with the browser, address and application
 * each signed in from, the one this page came from marked;
 * signing one out ends it and revokes the tokens issued from it (DeleteSession).
 */
export function Sessions() {
  const t = useWords();
  const { userId, sessionId } = useUser();
  const list = useQuery(SessionService.method.listSessions, { userId, pagination: { limit: 100 } });
  const [ending, setEnding] = useState<string | 'others'>();
  const queries = useQueryClient();
  const end = useChange(SessionService.method.deleteSession, () => setEnding(undefined));
  const [othersError, setOthersError] = useState<unknown>();
  const others = (list.data?.sessions ?? []).filter((s) => s.id !== sessionId);
  const endOthers = async () => {
    setEnding(undefined);
    setOthersError(undefined);
    try {
      for (const s of others) await end.mutateAsync({ sessionId: s.id });
    } catch (err) {
      setOthersError(err);
    }
    void queries.invalidateQueries();
  };
  return (
    <section aria-labelledby="sessions-title">
      <h1 id="sessions-title">{t.sessions}</h1>
      {end.error || othersError ? <Failure error={end.error ?? othersError} /> : null}
      {list.isPending ? (
        <Loading />
      ) : list.error ? (
        <Failure error={list.error} />
      ) : (
        <>
          <DataTable
            rows={list.data.sessions}
            rowKey={(s) => s.id}
            columns={[
              {
                header: t.created,
                cell: (s) => (
                  <>
                    {when(s.creationDate && timestampDate(s.creationDate))}
                    {s.id === sessionId && <strong className="tag"> · {t.thisSession}</strong>}
                  </>
                ),
              },
              { header: t.lastActive, cell: (s) => when(s.changeDate && timestampDate(s.changeDate)) },
              ...originColumns(t),
            ]}
            actions={(s) =>
              s.id !== sessionId && (
                <button type="button" className="danger" onClick={() => setEnding(s.id)}>
                  {t.endSession}
                </button>
              )
            }
          />
          {others.length > 0 && (
            <button type="button" className="danger" onClick={() => setEnding('others')}>
              {t.endOtherSessions}
            </button>
          )}
        </>
      )}
      {ending && (
        <Confirm
          question={ending === 'others' ? t.confirmEndOthers : t.confirmEndSession}
          action={ending === 'others' ? t.endOtherSessions : t.endSession}
          onConfirm={() => (ending === 'others' ? void endOthers() : end.mutate({ sessionId: ending }))}
          onCancel={() => setEnding(undefined)}
        />
      )}
    </section>
  );
}
