/** A user of these states may sign in: active ones, and v1's initial users who still have to finish onboarding. */
export const SIGN_IN_STATES = ['ACTIVE', 'INITIAL'];

/**
 * Where a sign-in is decided, what is checked there. The places differ on purpose:
 * - `human`: only a human user signs in with a password; a machine user's password check fails like a
 *   wrong password.
 * - `machine`: machine users have no onboarding, so only ACTIVE counts; their organization's state is
 *   already folded into the state `machineUser` returns (a cached entry that org changes evict).
 * - `org: false` where the organization is checked one step later: the password step leaves it to the
 *   moment the session answers an auth request (`refusalFor`), so the login page answers a user of a
 *   deactivated organization exactly as before (the client then gets access_denied).
 */
export interface SignInRule {
  human?: boolean;
  machine?: boolean;
  org: boolean;
}

/** The password step of the hosted login and of the session API. */
export const PASSWORD_SIGN_IN: SignInRule = { human: true, org: false };
/** A sign-in at an upstream identity provider: the linked user, checked as the password's user is. */
export const UPSTREAM_SIGN_IN: SignInRule = { human: true, org: false };
/** Every later use of a sign-in: the auth request's answer, code exchange, refresh, token exchange, tokens, the API. */
export const TOKEN_USE: SignInRule = { org: true };
/**
 * A browser's session answering a new auth request: its user was a human when the password was
 * checked; the organization is checked when the session answers (`refusalFor`).
 */
export const SESSION_REUSE: SignInRule = { org: false };
/** Client credentials, JWT profile and the machine user's own tokens. */
export const MACHINE_SIGN_IN: SignInRule = { machine: true, org: false };

/**
 * The one rule for "may this user sign in (or go on using what a sign-in gave)": the user's type, state
 * and organization, as the rule asks. Returns why not, or undefined when the user may.
 */
export function signInRefusal(
  user: { state: string | null; type?: string; orgState?: string | null },
  rule: SignInRule,
): string | undefined {
  if (rule.human && user.type !== 'HUMAN') return 'the user is not a human user';
  const states = rule.machine ? ['ACTIVE'] : SIGN_IN_STATES;
  if (!states.includes(user.state ?? '')) return 'the user is not active';
  if (rule.org && user.orgState !== 'ACTIVE') return "the user's organization is not active";
  return undefined;
}

export const maySignIn = (user: Parameters<typeof signInRefusal>[0], rule: SignInRule): boolean =>
  signInRefusal(user, rule) === undefined;
