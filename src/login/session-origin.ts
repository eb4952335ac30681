import type { SessionOrigin } from '../domain/session/sessions';
import { peerAddress } from '../http/rate-limit/source-address';
import type { Turn } from './steps/types';

/**
 * What a session the hosted login creates records about where it came from: the browser (its User-Agent
 * header), the connection's address and the client the sign-in is for. The person sees them in their
 * sessions, to tell theirs from one that is not.
 */
export function sessionOrigin(turn: Pick<Turn, 'c' | 'r'>): SessionOrigin {
  return {
    userAgent: turn.c.req.header('user-agent'),
    ipAddress: peerAddress(turn.c),
    clientId: turn.r.clientId,
  };
}
