import type { LocalizedNames } from './declare';
import { AGGREGATE_TYPES, type AggregateType, EVENT_TYPES, type EventType, eventTypes } from './registry';

/**
 * Localized names of event and aggregate types (English and German), for the v1 and v2 event searches, as the
 * event registry declares them. A type without names is shown by its technical name.
 */
export type Lang = 'en' | 'de';

/**
 * The v1 listing shows these first, in this order (they were published after the first list and put in
 * front of it); every other event type with names follows in the registry's order.
 */
const LISTED_FIRST: readonly EventType[] = [
  'auth_request.added',
  'instance.settings.changed',
  'oidc_session.access_token.added',
  'oidc_session.refresh_token.added',
  'oidc_session.refresh_token.revoked',
  'oidc_session.revoked',
  'project.grant.deactivated',
  'project.grant.reactivated',
  'session.password.checked',
  'user.human.password.check.failed',
  'user.human.password.check.succeeded',
  'user.human.password.hash.updated',
  'user.initialized',
  'web_key.deactivated',
];

const named = <K extends string>(entries: [K, LocalizedNames | null][]) =>
  Object.fromEntries(entries.filter((e): e is [K, LocalizedNames] => e[1] !== null)) as Record<string, LocalizedNames>;

/** Localized names of the event types that have them, in the order v1 lists them (src/domain/events/registry.ts). */
export const EVENT_TYPE_NAMES = named(
  [...LISTED_FIRST, ...eventTypes.filter((t) => !LISTED_FIRST.includes(t))].map((t) => [t, EVENT_TYPES[t].names]),
);

export const AGGREGATE_TYPE_NAMES = named(Object.entries(AGGREGATE_TYPES) as [AggregateType, LocalizedNames | null][]);

export function localizedEventType(type: string, lang: Lang) {
  const names = EVENT_TYPE_NAMES[type];
  return {
    type,
    localized: { key: `EventTypes.${type}`, localizedMessage: names ? names[lang === 'de' ? 1 : 0] : type },
  };
}

export function localizedAggregateType(type: string, lang: Lang) {
  const names = AGGREGATE_TYPE_NAMES[type];
  return {
    type,
    localized: { key: `AggregateTypes.${type}`, localizedMessage: names ? names[lang === 'de' ? 1 : 0] : type },
  };
}

/** The caller's preferred language among the ones we have, from Accept-Language; English by default. */
export function languageOf(acceptLanguage: string | undefined): Lang {
  if (!acceptLanguage) return 'en';
  let best: { lang: Lang; q: number } | undefined;
  for (const part of acceptLanguage.split(',')) {
    const [tag, ...params] = part.trim().split(';');
    const base = tag.trim().toLowerCase().split('-')[0];
    if (base !== 'en' && base !== 'de') continue;
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const q = qParam ? Number(qParam.slice(2)) : 1;
    if (Number.isFinite(q) && q > 0 && (!best || q > best.q)) best = { lang: base, q };
  }
  return best?.lang ?? 'en';
}
