import { idpIntents } from '../../../db/schema/index';

export type IntentRow = typeof idpIntents.$inferSelect;

/** An intent lives this long from its start: the user signs in upstream and comes back meanwhile. */
export const INTENT_LIFETIME_MS = 10 * 60_000;
