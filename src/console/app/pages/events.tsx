/** @jsxImportSource react */
import { timestampDate, timestampFromDate } from '@bufbuild/protobuf/wkt';
import { useQuery } from '@connectrpc/connect-query';
import { useState } from 'react';
import { EventService } from '../../../../gen/portcullis/event/v2/event_service_pb';
import { Field } from '../components/field';
import { Failure, Loading } from '../components/status';
import { useWords } from '../context';
import { eventLabel, labelledEventTypes } from '../event-labels';
import { useOrgScope } from '../scope';

const PAGE = 50;

/**
 * The event store: newest first, by type, aggregate, editor, organization or time; each payload as
 * formatted JSON. Paging follows positions (older / newer), as the API's cursor does.
 */
export function Events() {
  const t = useWords();
  const scope = useOrgScope();
  const [type, setType] = useState('');
  const [aggregateId, setAggregateId] = useState('');
  const [editorUserId, setEditorUserId] = useState('');
  const [resourceOwner, setResourceOwner] = useState('');
  // datetime-local values, in the browser's time zone
  const [since, setSince] = useState('');
  const [until, setUntil] = useState('');
  const instant = (local: string) => {
    const date = new Date(local);
    return local && !Number.isNaN(date.getTime()) ? timestampFromDate(date) : undefined;
  };
  // positions before which each page starts: the last one is the current page's cursor
  const [cursors, setCursors] = useState<bigint[]>([]);
  const lang = document.documentElement.lang;
  const list = useQuery(EventService.method.listEvents, {
    limit: PAGE,
    eventTypes: type ? [type] : [],
    aggregateId: aggregateId.trim(),
    editorUserId: editorUserId.trim(),
    // the organization chosen in the switcher, unless another is typed
    resourceOwner: resourceOwner.trim() || scope.orgId || '',
    position: cursors.at(-1),
    createdSince: instant(since),
    createdUntil: instant(until),
  });
  const reset =
    <T,>(set: (v: T) => void) =>
    (v: T) => {
      set(v);
      setCursors([]);
    };
  const text = (id: string, label: string, value: string, set: (v: string) => void, type = 'text') => (
    <Field id={id} label={label}>
      <input id={id} type={type} value={value} onChange={(e) => reset(set)(e.target.value)} />
    </Field>
  );
  const events = list.data?.events ?? [];
  return (
    <section aria-labelledby="events-title">
      <h1 id="events-title">{t.events}</h1>
      <search className="filters">
        <Field id="event-type" label={t.eventType}>
          <select id="event-type" value={type} onChange={(e) => reset(setType)(e.target.value)}>
            <option value="">{t.any}</option>
            {labelledEventTypes(lang).map((et) => (
              <option key={et.type} value={et.type}>
                {et.label}
              </option>
            ))}
          </select>
        </Field>
        {text('event-aggregate', t.aggregateId, aggregateId, setAggregateId)}
        {text('event-editor', t.editorId, editorUserId, setEditorUserId)}
        {text('event-owner', t.organizationId, resourceOwner, setResourceOwner)}
        {text('event-since', t.createdSince, since, setSince, 'datetime-local')}
        {text('event-until', t.createdUntil, until, setUntil, 'datetime-local')}
      </search>
      {list.isPending ? (
        <Loading />
      ) : list.error ? (
        <Failure error={list.error} />
      ) : (
        <>
          <ol className="events">
            {events.map((e) => (
              <li key={String(e.position)}>
                <details>
                  <summary>
                    <time dateTime={e.creationDate ? timestampDate(e.creationDate).toISOString() : ''}>
                      {e.creationDate
                        ? timestampDate(e.creationDate).toLocaleString(document.documentElement.lang)
                        : ''}
                    </time>{' '}
                    <strong>{eventLabel(e.type, lang)}</strong> · {e.aggregateType} <code>{e.aggregateId}</code>
                    {e.editorDisplayName ? ` · ${e.editorDisplayName}` : ''}
                  </summary>
                  <dl className="facts">
                    <dt>{t.eventType}</dt>
                    <dd>
                      <code>{e.type}</code>
                    </dd>
                    <dt>{t.position}</dt>
                    <dd>{String(e.position)}</dd>
                    <dt>{t.editorId}</dt>
                    <dd>
                      <code>{e.editorUserId}</code> ({e.editorService})
                    </dd>
                    <dt>{t.organizationId}</dt>
                    <dd>
                      <code>{e.resourceOwner}</code>
                    </dd>
                  </dl>
                  <pre className="payload">{JSON.stringify(e.payload ?? {}, null, 2)}</pre>
                </details>
              </li>
            ))}
          </ol>
          {events.length === 0 && <p>{t.none}</p>}
          <div className="pager">
            <button type="button" disabled={cursors.length === 0} onClick={() => setCursors(cursors.slice(0, -1))}>
              {t.newer}
            </button>
            <button
              type="button"
              disabled={events.length < PAGE}
              onClick={() => setCursors([...cursors, events[events.length - 1].position])}
            >
              {t.older}
            </button>
          </div>
        </>
      )}
    </section>
  );
}
