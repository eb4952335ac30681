import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { DomainError } from '../../domain/errors';
import { idpEnvOf } from '../../domain/idp/env';
import { externalSignIn, linkAfterSignIn } from '../../domain/idp/external-sign-in';
import { oidcCtx } from '../../oidc/env';
import type { SignedIn, Turn } from '../steps/types';
import { secure } from '../cookies';
import { sentBindingSecret } from './binding';

/**
 * An external sign-in waiting to be linked to the account the user signs in to next (a provider that
 * links but creates no accounts, and found none to propose). Only the intent id is kept: the intent
 * itself is still bound to this browser and this auth request.
 */
const PENDING_LINK_COOKIE = 'pc_idp_link';

export function rememberPendingLink(turn: Turn, intentId: string): void {
  setCookie(turn.c, PENDING_LINK_COOKIE, intentId, {
    path: '/ui/login',
    httpOnly: true,
    secure: secure(turn.c),
    sameSite: 'Lax',
    maxAge: 600,
  });
}

/**
 * After a sign-in here: links the waiting external account to the user who signed in, once. A
 * pending link that no longer fits (expired, another request, another browser) is dropped silently:
 * the sign-in itself goes on either way. The cookie is taken at once; the link is made by the returned
 * function, once the sign-in's unit of work has committed (undefined: nothing waits).
 */
export function takePendingExternalLink(turn: Turn, signedIn: SignedIn): (() => Promise<void>) | undefined {
  const intentId = getCookie(turn.c, PENDING_LINK_COOKIE);
  if (!intentId) return undefined;
  deleteCookie(turn.c, PENDING_LINK_COOKIE, { path: '/ui/login' });
  return () => linkPending(turn, signedIn, intentId);
}

async function linkPending(turn: Turn, signedIn: SignedIn, intentId: string): Promise<void> {
  try {
    const s = await externalSignIn(turn.deps.database.db, idpEnvOf(turn.deps.config).masterKey, {
      intentId,
      authRequestId: turn.r.id,
      bindingSecret: sentBindingSecret(turn.c),
    });
    if (s.linkedUserId) return;
    await linkAfterSignIn(oidcCtx(turn.deps, 'login/idp'), s, signedIn.user);
  } catch (err) {
    if (!(err instanceof DomainError) || err.kind === 'internal') throw err;
    turn.deps.log.info({ err: err.message }, 'pending identity-provider link dropped');
  }
}
