import type { ServiceImpl } from '@connectrpc/connect';
import { EventService } from '../../../gen/portcullis/event/v2/event_service_pb';
import type { Deps } from '../../deps';
import { EVENT_TYPE_NAMES, languageOf, localizedEventType } from '../../domain/events/names';
import { requireEventsRead } from '../../domain/events/read-access';
import { MAX_EVENTS, searchEvents } from '../../domain/events/search';
import { ctxOf } from '../context';
import { structOf } from '../convert/struct';
import { optDate, ts } from '../convert/time';

/** The event search of the v1 route, over the v2 API: the same query, the same redaction. */
export function eventHandlers(deps: Deps): ServiceImpl<typeof EventService> {
  return {
    async listEvents(req, hc) {
      const found = await searchEvents(ctxOf(deps, hc), {
        asc: req.asc,
        limit: Math.min(req.limit || MAX_EVENTS, MAX_EVENTS),
        eventTypes: req.eventTypes,
        aggregateId: req.aggregateId || undefined,
        aggregateTypes: req.aggregateTypes,
        editorUserId: req.editorUserId || undefined,
        resourceOwner: req.resourceOwner || undefined,
        position: req.position === undefined ? undefined : Number(req.position),
        createdSince: optDate(req.createdSince),
        createdUntil: optDate(req.createdUntil),
      });
      const lang = languageOf(hc.requestHeader.get('accept-language') ?? undefined);
      return {
        events: found.map((e) => ({
          position: BigInt(e.position),
          sequence: BigInt(e.sequence),
          type: e.eventType,
          typeName: localizedEventType(e.eventType, lang).localized.localizedMessage,
          aggregateType: e.aggregateType,
          aggregateId: e.aggregateId,
          resourceOwner: e.resourceOwner,
          editorUserId: e.editorUserId,
          editorDisplayName: e.editorDisplayName ?? '',
          editorService: e.editorService,
          creationDate: ts(new Date(e.createdAt)),
          payload: structOf(JSON.parse(e.payloadJson)),
        })),
      };
    },
    async listEventTypes(_req, hc) {
      requireEventsRead(ctxOf(deps, hc).principal, 'listing event types');
      const lang = languageOf(hc.requestHeader.get('accept-language') ?? undefined);
      return {
        eventTypes: Object.keys(EVENT_TYPE_NAMES).map((type) => ({
          type,
          name: localizedEventType(type, lang).localized.localizedMessage,
        })),
      };
    },
  };
}
