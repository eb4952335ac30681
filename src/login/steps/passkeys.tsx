import { setAuthRequestLoginName } from '../../domain/oidc/auth-requests';
import { DomainError } from '../../domain/errors';
import { checkWebAuthn } from '../../domain/session/checks/webauthn';
import {
  finishPasskeySignIn,
  openSecondFactorChallenge,
  startPasskeySignIn,
} from '../../domain/session/passkey-sign-in';
import { rebindUserAgent } from '../../domain/session/sessions';
import { loginNameOf } from '../../domain/session/users';
import { domainOfHost } from '../../domain/user/factors/relying-party';
import { registerPasskey, verifyPasskeyRegistration } from '../../domain/user/factors/webauthn';
import { rotateUserAgent, userAgentHash } from '../cookies';
import { PasskeyPage, SetupPasskeyPage, WebAuthnStepPage } from '../pages/passkeys';
import { withScript } from '../webauthn-script';
import { withSignedInUser } from './signed-in';
import { FACTORS, SETUP } from '../../domain/sign-in/factors';
import type { LoginStep, Turn } from './types';
import { sessionOrigin } from '../session-origin';

/** The browser's credential JSON from the form, or undefined. */
function credentialOf(turn: Turn): unknown {
  try {
    return JSON.parse(turn.form.credential ?? '');
  } catch {
    return undefined;
  }
}

/** A refused WebAuthn answer: back to the page with its error; anything else is a server error. */
function refused(turn: Turn, path: string, err: unknown): Response {
  if (err instanceof DomainError && ['invalid_argument', 'failed_precondition', 'not_found'].includes(err.kind))
    return turn.see(`${turn.url(path)}&error=failed`);
  throw err;
}

/** The RP id of the page: the host it was reached under when that is a domain of the instance. */
export function pageDomain(turn: Pick<Turn, 'c' | 'deps'>): Promise<string | undefined> {
  const { c, deps } = turn;
  return domainOfHost(deps.database.db, deps.instanceId, new URL(c.req.url).hostname);
}

/** A passkey sign-in of this browser: its session holds the challenge (a cookie is set if there is none yet). */
async function startSignIn(turn: Turn) {
  const ua = userAgentHash(turn.c) ?? rotateUserAgent(turn.c);
  return startPasskeySignIn(turn.ctx(), ua, turn.deps.config.externalUrl, await pageDomain(turn), sessionOrigin(turn));
}

/**
 * Sign in with a passkey, without a login name: the browser offers the passkeys it holds for this
 * site (the button here and on the login name page, or the login name field's autofill), and the
 * passkey names the user. The login name page fetches its options from `passkey/options`.
 */
export const passkey: LoginStep = {
  path: 'passkey',
  async page(turn) {
    const { challengeId, options } = await startSignIn(turn);
    const error = turn.queryError({ failed: turn.t.webauthnFailed });
    return withScript(
      turn.render((base) => <PasskeyPage {...base} options={options} challenge={challengeId} error={error} />),
    );
  },
  actions: {
    async options(turn) {
      const { challengeId, options } = await startSignIn(turn);
      turn.c.header('Cache-Control', 'no-store');
      return turn.c.json({ challenge: challengeId, options });
    },
  },
  async post(turn) {
    const { c, deps, r } = turn;
    let signedIn: Awaited<ReturnType<typeof finishPasskeySignIn>>;
    try {
      signedIn = await finishPasskeySignIn(
        turn.ctx(),
        turn.form.challenge ?? '',
        userAgentHash(c),
        credentialOf(turn),
        deps.config.externalUrl,
        r.id,
      );
    } catch (err) {
      return refused(turn, 'passkey', err);
    }
    const { user } = signedIn;
    // a sign-in for one organization (its scope) accepts only its users
    if (r.orgId && user.orgId !== r.orgId) return turn.see(`${turn.url('passkey')}&error=failed`);
    const uctx = turn.ctx(user.id, user.orgId);
    await setAuthRequestLoginName(uctx, r.id, loginNameOf(user));
    turn.r = { ...r, loginName: loginNameOf(user) };
    // a new cookie value at every sign-in: no session fixation
    await rebindUserAgent(uctx.db, userAgentHash(c), rotateUserAgent(c));
    return turn.proceed(signedIn, passkey);
  },
};

/** A security key or passkey as the second factor after the password. */
export const webauthn: LoginStep = {
  path: FACTORS.webAuthN.checkPath,
  page: (turn) =>
    withSignedInUser(turn, 'login', async ({ user, sessionId }) => {
      const options = await openSecondFactorChallenge(
        turn.ctx(user.id, user.orgId),
        sessionId,
        user,
        turn.deps.config.externalUrl,
        await pageDomain(turn),
      );
      const error = turn.queryError({ failed: turn.t.webauthnFailed });
      return withScript(turn.render((base) => <WebAuthnStepPage {...base} options={options} error={error} />));
    }),
  post: (turn) =>
    withSignedInUser(turn, 'login', async (signedIn) => {
      const { user, sessionId } = signedIn;
      try {
        await checkWebAuthn(turn.ctx(user.id, user.orgId), sessionId, user, {
          credential: credentialOf(turn),
          externalUrl: turn.deps.config.externalUrl,
        });
      } catch (err) {
        return refused(turn, FACTORS.webAuthN.checkPath, err);
      }
      return turn.proceed(signedIn, webauthn);
    }),
};

/** Registering a passkey during the login; it also counts as checked in this session. */
export const setupPasskey: LoginStep = {
  path: SETUP.passkey.path,
  page: (turn) =>
    withSignedInUser(turn, 'login', async ({ user }) => {
      const { t } = turn;
      const reg = await registerPasskey(
        turn.ctx(user.id, user.orgId),
        { userId: user.id, type: 'passkey', domain: await pageDomain(turn) },
        turn.deps.config.externalUrl,
      );
      const error = turn.queryError({ failed: t.webauthnFailed });
      return withScript(
        turn.render((base) => (
          <SetupPasskeyPage
            {...base}
            action="/ui/login/setup-passkey"
            title={t.setupPasskeyTitle}
            text={t.setupPasskeyText}
            options={reg.options}
            fields={{ passkeyId: reg.id }}
            error={error}
          />
        )),
      );
    }),
  post: (turn) =>
    withSignedInUser(turn, 'login', async (signedIn) => {
      const { user, sessionId } = signedIn;
      try {
        await verifyPasskeyRegistration(
          turn.ctx(user.id, user.orgId),
          {
            userId: user.id,
            passkeyId: turn.form.passkeyId ?? '',
            credential: credentialOf(turn),
            name: (turn.form.passkeyName ?? '').slice(0, 200),
          },
          turn.deps.config.externalUrl,
          { sessionId },
        );
      } catch (err) {
        return refused(turn, SETUP.passkey.path, err);
      }
      return turn.proceed(signedIn, setupPasskey);
    }),
};
