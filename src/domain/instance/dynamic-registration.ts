import { and, eq, ne } from 'drizzle-orm';
import { projects } from '../../db/schema/index';
import { hashSecret } from '../../crypto/secrets';
import { GRANT_TYPE_NAMES } from '../application/registration/names';
import { invalidArgument } from '../errors';
import type { UnitOfWork } from '../execute';
import type { InstanceSettings } from './settings';

const MIN_TOKEN_LENGTH = 32;
const MAX_TOKEN_LENGTH = 512;

const invalid = (msg: string) => invalidArgument('Errors.Instance.Settings.Invalid', msg);

/**
 * The stored form of a new initial access token: its keyed hash, or '' to remove it. Checked here
 * because only the hash reaches the settings.
 */
export function initialAccessTokenHash(token: string): string {
  if (token === '') return '';
  if (token.length < MIN_TOKEN_LENGTH || token.length > MAX_TOKEN_LENGTH || /[^\x21-\x7e]/.test(token)) {
    throw invalid(
      `dynamic_registration_initial_access_token must be ${MIN_TOKEN_LENGTH}–${MAX_TOKEN_LENGTH} ` +
        'printable characters without spaces',
    );
  }
  return hashSecret(token);
}

/** The synchronous checks of the registration settings (checkSettings calls it). */
export function checkDynamicRegistrationSettings(s: InstanceSettings): void {
  if (!['OFF', 'OPEN', 'INITIAL_ACCESS_TOKEN'].includes(s.dynamicRegistration))
    throw invalid('dynamic_registration must be OFF, OPEN or INITIAL_ACCESS_TOKEN');
  for (const g of s.dynamicRegistrationGrantTypes) {
    if (!Object.hasOwn(GRANT_TYPE_NAMES, g))
      throw invalid(
        `dynamic_registration_grant_types: "${g}" is not one of ${Object.keys(GRANT_TYPE_NAMES).join(', ')}`,
      );
  }
  if (s.dynamicRegistration === 'OFF') return;
  if (!s.dynamicRegistrationProjectId)
    throw invalid('dynamic_registration_project_id is required while dynamic_registration is on');
  if (s.dynamicRegistration === 'INITIAL_ACCESS_TOKEN' && !s.dynamicRegistrationInitialAccessTokenHash)
    throw invalid('dynamic_registration INITIAL_ACCESS_TOKEN needs dynamic_registration_initial_access_token');
}

/** The checks that read the database: the project for self-registered clients exists. */
export async function checkDynamicRegistrationProject(work: UnitOfWork, s: InstanceSettings): Promise<void> {
  if (s.dynamicRegistration === 'OFF') return;
  const [row] = await work.tx
    .select({ id: projects.id })
    .from(projects)
    .where(and(eq(projects.id, s.dynamicRegistrationProjectId), ne(projects.state, 'REMOVED')));
  if (!row) throw invalid(`dynamic_registration_project_id: project "${s.dynamicRegistrationProjectId}" not found`);
}

/** The settings as an event or a reader sees them: the token hash becomes whether one is set. */
export function withoutTokenHash<T extends Partial<InstanceSettings>>(s: T): T {
  if (s.dynamicRegistrationInitialAccessTokenHash === undefined) return s;
  return { ...s, dynamicRegistrationInitialAccessTokenHash: s.dynamicRegistrationInitialAccessTokenHash ? 'set' : '' };
}
