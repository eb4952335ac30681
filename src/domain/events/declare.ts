/**
 * The shape of an event type's declaration in the registry (src/domain/events/registry.ts). Each area
 * declares its event types in src/domain/events/types/: the payload type (in an interface keyed by
 * event type) and, for the same keys, a declaration with what the event belongs to, how v1 names it
 * and which caches it makes stale.
 */
export type AggregateType =
  | 'instance'
  | 'org'
  | 'user'
  | 'project'
  | 'authorization'
  | 'session'
  | 'oidc_session'
  | 'web_key'
  | 'auth_request'
  | 'access_token'
  | 'refresh_token'
  | 'idp_intent'
  | 'device_authorization';

/** English and German names, as the v1 event search shows them. */
export type LocalizedNames = readonly [en: string, de: string];

/**
 * A cache an event makes stale once it commits (src/domain/events/invalidation.ts acts on it):
 * - `token-lookups`: every looked-up access token (the token cache starts a new generation);
 * - `principal`, `machine-user`: the cached principal / machine user of the user the event is about
 *   (its aggregate id);
 * - `member-principal`: the cached principal of the user an administrator event names (payload.userId);
 * - `instance`: the instance's row and domains as GetInstance answers them (its aggregate id);
 * - `instance-settings`: the settings of the instance the command ran in;
 * - `org-users`: the principals and machine users of every user of the organization (its aggregate id);
 * - `login-policy`: the cached login policy of the instance or organization (its aggregate id).
 */
export type Invalidation =
  | 'token-lookups'
  | 'principal'
  | 'machine-user'
  | 'member-principal'
  | 'instance'
  | 'instance-settings'
  | 'org-users'
  | 'login-policy';

export interface EventDeclaration {
  /** the aggregate type(s) the event is appended to */
  aggregate: AggregateType | readonly AggregateType[];
  /** null: v1 shows the technical name (no localized name has been published for it) */
  names: LocalizedNames | null;
  invalidates: readonly Invalidation[];
}

/** The declarations of one aggregate's event types read `user(names, ...invalidates)`. */
export const declareFor =
  (aggregate: EventDeclaration['aggregate']) =>
  (names: LocalizedNames | null, ...invalidates: Invalidation[]): EventDeclaration => ({
    aggregate,
    names,
    invalidates,
  });

/** One declaration for every key of an area's payload interface: a missing or extra one is a compile error. */
export type Declarations<Payloads> = { readonly [T in keyof Payloads]-?: EventDeclaration };

/** The payload of an event that carries nothing but its type. */
export type Empty = Record<string, never>;

/** A payload that lists changed fields, whichever of them changed. */
export type ChangedFields = Record<string, unknown>;
