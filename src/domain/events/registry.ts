import type { AggregateType, EventDeclaration, Invalidation, LocalizedNames } from './declare';
import { type AuthorizationEvents, authorizationEvents } from './types/authorization';
import { type IdentityProviderEvents, identityProviderEvents } from './types/identity-providers';
import { type InstanceEvents, instanceEvents } from './types/instance';
import { type OidcEvents, oidcEvents } from './types/oidc';
import { type OrgEvents, orgEvents } from './types/org';
import { type PasskeyEvents, passkeyEvents } from './types/passkeys';
import { type ProjectEvents, projectEvents } from './types/project';
import { type SecondFactorEvents, secondFactorEvents } from './types/second-factors';
import { type SessionEvents, sessionEvents } from './types/session';
import { type UserEvents, userEvents } from './types/user';

export type { AggregateType, EventDeclaration, Invalidation } from './declare';

/**
 * Every event type Portcullis appends, with its payload type. `work.push` accepts only these types and
 * the payload of the type pushed (src/domain/execute.ts). A new event type is a key in its area's
 * interface and declaration in src/domain/events/types/; the v1 names, the token cache's neutral set
 * and the cache invalidation after a commit follow from the declaration.
 */
export interface EventPayloads
  extends InstanceEvents,
    OrgEvents,
    UserEvents,
    PasskeyEvents,
    SecondFactorEvents,
    ProjectEvents,
    AuthorizationEvents,
    SessionEvents,
    OidcEvents,
    IdentityProviderEvents {}

export type EventType = keyof EventPayloads;

/** In the order v1 lists the event types of each aggregate. */
export const EVENT_TYPES: Readonly<Record<EventType, EventDeclaration>> = {
  ...instanceEvents,
  ...orgEvents,
  ...userEvents,
  ...secondFactorEvents,
  ...passkeyEvents,
  ...projectEvents,
  ...authorizationEvents,
  ...sessionEvents,
  ...oidcEvents,
  ...identityProviderEvents,
};

/** Aggregate types with their v1 names, in the order v1 lists them; null: shown by the technical name. */
export const AGGREGATE_TYPES: Readonly<Record<AggregateType, LocalizedNames | null>> = {
  instance: ['Instance', 'Instanz'],
  org: ['Organization', 'Organisation'],
  user: ['User', 'Benutzer'],
  project: ['Project', 'Projekt'],
  authorization: ['Authorization', 'Berechtigung'],
  session: ['Session', 'Sitzung'],
  oidc_session: ['OIDC session', 'OIDC-Sitzung'],
  web_key: ['Signing key', 'Signaturschlüssel'],
  auth_request: null,
  access_token: null,
  refresh_token: null,
  idp_intent: null,
  device_authorization: null,
};

export const eventTypes = Object.keys(EVENT_TYPES) as EventType[];

export function isEventType(type: string): type is EventType {
  return Object.hasOwn(EVENT_TYPES, type);
}

/** The event types whose declaration lists `effect`. */
export function typesInvalidating(effect: Invalidation): ReadonlySet<EventType> {
  return new Set(eventTypes.filter((t) => EVENT_TYPES[t].invalidates.includes(effect)));
}

/** A type with its payload, for code that picks the event to push before pushing it. */
export type TypedEvent<T extends EventType = EventType> = { [K in T]: { type: K; payload?: EventPayloads[K] } }[T];
