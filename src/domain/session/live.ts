import { and, gt, isNull, or } from 'drizzle-orm';
import { sessions } from '../../db/schema/index';

/** A session that was neither ended nor has run out. */
export const live = () =>
  and(isNull(sessions.terminatedAt), or(isNull(sessions.expiresAt), gt(sessions.expiresAt, new Date())));
