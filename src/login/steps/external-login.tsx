import { DomainError } from '../../domain/errors';
import { idpEnvOf } from '../../domain/idp/env';
import {
  createLinkedUser,
  type ExternalSignIn,
  externalSignIn,
  linkExistingAccount,
  linkNeedsCredential,
  offeredProvider,
} from '../../domain/idp/external-sign-in';
import { decideUpstream, signInWithUpstream } from '../../domain/sign-in/upstream';
import { startIntent } from '../../domain/idp/intents/start';
import { providerForSignIn } from '../../domain/idp/intents/provider-for-sign-in';
import { defaultOrgId, type LoginUser, loginNameOf } from '../../domain/session/users';
import { oidcCtx } from '../../oidc/env';
import { newUserAgent, setUserAgent, userAgentHash } from '../cookies';
import { autoPost } from '../idp/auto-post';
import { bindingSecret, sentBindingSecret } from '../idp/binding';
import { rememberPendingLink } from '../idp/pending-link';
import {
  type CreateValues,
  CreateFromUpstreamPage,
  ExternalMessagePage,
  fill,
  LdapPage,
  LinkLaterPage,
  LinkPage,
} from '../pages/external-login';
import type { LoginStep, Turn } from './types';
import { sourceOf } from '../../deps';
import { sessionOrigin } from '../session-origin';

const systemCtx = (turn: Turn) => oidcCtx(turn.deps, 'login/idp');

/** The external sign-in of this request named by the page (query) or its form, from this browser. */
function loadSignIn(turn: Turn): Promise<ExternalSignIn> {
  const intentId = turn.form.intent ?? turn.c.req.query('intent') ?? '';
  return externalSignIn(turn.deps.database.db, idpEnvOf(turn.deps.config).masterKey, {
    intentId,
    authRequestId: turn.r.id,
    bindingSecret: sentBindingSecret(turn.c),
  });
}

function message(turn: Turn, title: string, text: string, status = 400) {
  return turn.render((base) => <ExternalMessagePage {...base} title={title} text={text} />, status);
}

/** Refusals of the domain become a page with the way back; anything else is a server fault. */
async function orMessage(turn: Turn, run: () => Promise<Response>): Promise<Response> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof DomainError && err.kind !== 'internal') return message(turn, turn.t.idpFailedTitle, err.message);
    throw err;
  }
}

/**
 * Signs the linked user in (src/domain/sign-in/upstream.ts): one unit of work moves this browser to a
 * new cookie, records the sign-in on its session and finishes the request where the policy lets it.
 */
async function signIn(turn: Turn, s: ExternalSignIn, userId: string): Promise<Response> {
  const { c, t } = turn;
  const ua = newUserAgent();
  const result = await signInWithUpstream({
    ctx: systemCtx(turn),
    userCtx: (user) => turn.ctx(user.id, user.orgId),
    s,
    request: turn.r,
    userId,
    browser: { userAgentHash: userAgentHash(c), newUserAgentHash: ua.hash, origin: sessionOrigin(turn) },
    next: (work, signedIn) => {
      // the new cookie goes only with a sign-in that happened
      setUserAgent(c, ua.value);
      return turn.proceed(signedIn, undefined, work);
    },
  });
  if (result.ok) return result.value;
  if (result.reason === 'locked') return message(turn, t.idpFailedTitle, t.locked, 403);
  return message(turn, t.idpFailedTitle, t.invalidCredentials, 403);
}

/** The organization a new account joins: the provider's, else the request's, else the default one. */
const newUserOrg = async (turn: Turn, s: ExternalSignIn) =>
  s.provider.row.orgId ?? turn.r.orgId ?? (await defaultOrgId(turn.deps.database.db, turn.deps.instanceId));

function createPage(turn: Turn, s: ExternalSignIn, values: CreateValues, error?: string, status = 200) {
  return turn.render(
    (base) => (
      <CreateFromUpstreamPage
        {...base}
        intentId={s.intent.id}
        provider={s.provider.row.name}
        values={values}
        error={error}
      />
    ),
    status,
  );
}

function linkPage(turn: Turn, s: ExternalSignIn, user: LoginUser, error?: string) {
  return turn.render(
    (base) => (
      <LinkPage
        {...base}
        intentId={s.intent.id}
        provider={s.provider.row.name}
        loginName={loginNameOf(user)}
        withPassword={linkNeedsCredential(s)}
        error={error}
      />
    ),
    error ? 400 : 200,
  );
}

/**
 * Back from an external identity provider (`/idps/callback` sends the browser here): the linked
 * user signs in; otherwise auto-linking proposes an existing account, or a new account is created
 * (at once with just-in-time creation and a complete profile, else on a form with the upstream's
 * data), as the provider's options allow.
 */
export const externalLogin: LoginStep = {
  path: 'idp',
  page: (turn) =>
    orMessage(turn, async () => {
      const s = await loadSignIn(turn);
      const next = await decideUpstream(turn.deps.database.db, s, turn.r.orgId);
      switch (next.next) {
        case 'sign-in':
          return signIn(turn, s, next.userId);
        case 'confirm-link':
          return linkPage(turn, s, next.user);
        case 'create-now': {
          const user = await createLinkedUser(systemCtx(turn), s, await newUserOrg(turn, s), next.values);
          return signIn(turn, s, user.id);
        }
        case 'create-form':
          return createPage(turn, s, next.values);
        case 'link-later': {
          const text = fill(turn.t.idpLinkLaterText, { provider: s.provider.row.name });
          return turn.render((base) => <LinkLaterPage {...base} intentId={s.intent.id} text={text} />);
        }
        case 'no-account': {
          const text = fill(turn.t.idpNoAccountText, { provider: s.provider.row.name });
          return message(turn, turn.t.idpNoAccountTitle, text, 403);
        }
      }
    }),
  post: async (turn) => turn.see(turn.url('login')),
  actions: {
    /** a provider button: the intent starts, the browser goes upstream (LDAP asks for credentials here) */
    start: (turn) =>
      orMessage(turn, async () => {
        const { deps, r } = turn;
        const idpId = turn.form.idp ?? '';
        if (!(await offeredProvider(sourceOf(deps), deps.instanceId, r.orgId, idpId)))
          return turn.see(turn.url('login'));
        const env = idpEnvOf(deps.config);
        const provider = await providerForSignIn(deps.database.db, env.masterKey, idpId);
        if (provider.runtime.protocol === 'ldap')
          return turn.see(`${turn.url('ldap')}&idp=${encodeURIComponent(idpId)}`);
        const started = await startIntent(systemCtx(turn), env, {
          idpId,
          authRequestId: r.id,
          bindingSecret: bindingSecret(turn.c),
          loginHint: r.loginHint ?? undefined,
        });
        if ('form' in started) return autoPost(turn.c, started.form.url, started.form.fields, turn.t.idpRedirecting);
        if ('authUrl' in started) return turn.c.redirect(started.authUrl, 303);
        return turn.see(turn.url('login'));
      }),
    /** auto-linking confirmed: the account is found again here, never taken from the form */
    link: (turn) =>
      orMessage(turn, async () => {
        const s = await loadSignIn(turn);
        const next = await decideUpstream(turn.deps.database.db, s, turn.r.orgId);
        if (next.next === 'sign-in') return signIn(turn, s, next.userId);
        if (next.next !== 'confirm-link')
          return turn.see(`${turn.url('idp')}&intent=${encodeURIComponent(s.intent.id)}`);
        const { user } = next;
        // a matching email or username proves nothing: the account's own password does
        const userCtx = turn.ctx(user.id, user.orgId);
        const result = await linkExistingAccount(systemCtx(turn), userCtx, s, user, turn.form.password ?? '');
        if (!result.ok)
          return linkPage(turn, s, user, result.reason === 'locked' ? turn.t.locked : turn.t.invalidCredentials);
        return signIn(turn, s, user.id);
      }),
    /** no account to propose: the user signs in here, and the account is linked afterwards */
    'link-later': (turn) =>
      orMessage(turn, async () => {
        const s = await loadSignIn(turn);
        rememberPendingLink(turn, s.intent.id);
        return turn.see(turn.url('login'));
      }),
    /** the new account's form */
    create: (turn) =>
      orMessage(turn, async () => {
        const s = await loadSignIn(turn);
        if (s.linkedUserId) return signIn(turn, s, s.linkedUserId);
        const f = turn.form;
        const values = {
          givenName: f.givenName ?? '',
          familyName: f.familyName ?? '',
          email: f.email ?? '',
          username: f.username ?? '',
        };
        try {
          const user = await createLinkedUser(systemCtx(turn), s, await newUserOrg(turn, s), values);
          return signIn(turn, s, user.id);
        } catch (err) {
          if (err instanceof DomainError && err.kind === 'already_exists')
            return createPage(turn, s, values, turn.t.registrationRefused, 400);
          if (err instanceof DomainError && err.kind === 'invalid_argument')
            return createPage(turn, s, values, err.message, 400);
          throw err;
        }
      }),
  },
};

/** An LDAP provider's credentials: checked at once by a bind as the user, never stored. */
export const ldapLogin: LoginStep = {
  path: 'ldap',
  page: (turn) =>
    orMessage(turn, async () => {
      const { deps, r } = turn;
      const idpId = turn.c.req.query('idp') ?? '';
      if (!(await offeredProvider(sourceOf(deps), deps.instanceId, r.orgId, idpId))) return turn.see(turn.url('login'));
      const provider = await providerForSignIn(deps.database.db, idpEnvOf(deps.config).masterKey, idpId);
      const error = turn.queryError({ invalid: turn.t.invalidCredentials });
      return turn.render((base) => <LdapPage {...base} idpId={idpId} name={provider.row.name} error={error} />);
    }),
  post: (turn) =>
    orMessage(turn, async () => {
      const { deps, r } = turn;
      const idpId = turn.form.idp ?? '';
      if (!(await offeredProvider(sourceOf(deps), deps.instanceId, r.orgId, idpId))) return turn.see(turn.url('login'));
      const again = `${turn.url('ldap')}&idp=${encodeURIComponent(idpId)}`;
      try {
        const started = await startIntent(systemCtx(turn), idpEnvOf(deps.config), {
          idpId,
          authRequestId: r.id,
          bindingSecret: bindingSecret(turn.c),
          ldap: { username: turn.form.username ?? '', password: turn.form.password ?? '' },
        });
        return turn.see(`${turn.url('idp')}&intent=${encodeURIComponent(started.intentId)}`);
      } catch (err) {
        if (err instanceof DomainError && err.kind === 'unauthenticated') return turn.see(`${again}&error=invalid`);
        throw err;
      }
    }),
};
