import { Hono } from 'hono';
import type { Deps } from '../../deps';
import { invalidArgument } from '../../domain/errors';
import { requireEventsRead } from '../../domain/events/read-access';
import { type EventFilter, type EventRecord, searchEvents } from '../../domain/events/search';
import { INT32_MAX, type Obj, bool, int, obj, str, strings } from '../shape';
import { authenticate, readJson, v1Ctx } from '../request';
import {
  AGGREGATE_TYPE_NAMES,
  EVENT_TYPE_NAMES,
  type Lang,
  languageOf,
  localizedAggregateType,
  localizedEventType,
} from '../../domain/events/names';

/** POST /admin/v1/events/_search, /admin/v1/events/types/_search, /admin/v1/aggregates/types/_search. */
export function eventRoutes(deps: Deps) {
  const app = new Hono();
  app.post('/admin/v1/events/_search', async (c) => {
    const principal = await authenticate(deps, c);
    const filter = toFilter(await readJson(c));
    const ctx = v1Ctx(deps, principal, 'admin/v1/events/_search');
    // Event search tolerates a replica a little behind, as the v2 ListEvents does.
    const found = deps.reads
      ? await deps.reads.read(principal.userId, (db) => searchEvents({ ...ctx, db }, filter))
      : await searchEvents(ctx, filter);
    const lang = languageOf(c.req.header('accept-language'));
    // Up to 1,000 events: the JSON is assembled around each payload's text instead of parsing and
    // re-serialising every payload (most of the cost of a large answer).
    return c.body(`{"events":[${found.map((e) => toV1Event(e, lang)).join(',')}]}`, 200, {
      'Content-Type': 'application/json',
    });
  });
  app.post('/admin/v1/events/types/_search', async (c) => {
    requireEventsRead(await authenticate(deps, c), 'listing event types');
    const lang = languageOf(c.req.header('accept-language'));
    return c.json({ eventTypes: Object.keys(EVENT_TYPE_NAMES).map((t) => localizedEventType(t, lang)) });
  });
  app.post('/admin/v1/aggregates/types/_search', async (c) => {
    requireEventsRead(await authenticate(deps, c), 'listing aggregate types');
    const lang = languageOf(c.req.header('accept-language'));
    return c.json({ aggregateTypes: Object.keys(AGGREGATE_TYPE_NAMES).map((t) => localizedAggregateType(t, lang)) });
  });
  return app;
}

function toFilter(body: Obj): EventFilter {
  const range = obj(obj(body, 'creationDateFilter', '') ?? {}, 'range', 'creationDateFilter');
  const from = date(obj(body, 'creationDateFilter', '') ?? {}, 'from', 'creationDateFilter');
  const isAsc = bool(body, 'asc', '') ?? false;
  const filter: EventFilter = {
    asc: isAsc,
    limit: int(body, 'limit', ''),
    eventTypes: strings(body, 'eventTypes', ''),
    aggregateTypes: strings(body, 'aggregateTypes', ''),
    aggregateId: str(body, 'aggregateId', '') || undefined,
    editorUserId: str(body, 'editorUserId', '') || undefined,
    resourceOwner: str(body, 'resourceOwner', '') || undefined,
    sequence: int(body, 'sequence', '', INT32_MAX),
    position: int(body, 'position', ''),
  };
  if (range) {
    filter.createdSince = date(range, 'since', 'creationDateFilter.range');
    filter.createdUntil = date(range, 'until', 'creationDateFilter.range');
  } else if (from) {
    // `from` reads in the direction of the order: ascending from that date on, descending back from it.
    if (isAsc) filter.createdSince = from;
    else filter.createdUntil = from;
  }
  return filter;
}

function date(o: Obj, key: string, path: string): Date | undefined {
  const raw = str(o, key, path);
  if (raw === undefined || raw === '') return undefined;
  const d = new Date(raw);
  if (Number.isNaN(d.getTime()))
    throw invalidArgument('Errors.Request.InvalidShape', `${path}.${key} must be an RFC 3339 timestamp`);
  return d;
}

// The registry's types and their translations are fixed at build time: the same JSON for every server.
const fragments = new Map<string, string>();

/** The JSON of a localized type name, built once per type and language. */
function fragment(kind: 'event' | 'aggregate', type: string, lang: Lang): string {
  const key = `${kind}\u0000${type}\u0000${lang}`;
  let json = fragments.get(key);
  if (json === undefined) {
    json = JSON.stringify(kind === 'event' ? localizedEventType(type, lang) : localizedAggregateType(type, lang));
    if (fragments.size < 10_000) fragments.set(key, json);
  }
  return json;
}

function toV1Event(e: EventRecord, lang: Lang): string {
  const aggregateType = fragment('aggregate', e.aggregateType, lang);
  const aggregate =
    `{"id":${JSON.stringify(e.aggregateId)},"type":${aggregateType},` +
    `"resourceOwner":${JSON.stringify(e.resourceOwner)}}`;
  const editor = JSON.stringify({
    userId: e.editorUserId,
    displayName: e.editorDisplayName ?? '',
    service: e.editorService,
  });
  const type = fragment('event', e.eventType, lang);
  return (
    `{"type":${type},"payload":${e.payloadJson},"aggregate":${aggregate},"editor":${editor},` +
    `"sequence":"${e.sequence}","position":"${e.position}","creationDate":"${e.createdAt}"}`
  );
}
