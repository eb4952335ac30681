import { factorUniqueConstraints } from './domain/user/factors/unique-constraints';
import { administratorUniqueConstraints } from './domain/administrator/commands';
import { applicationUniqueConstraints } from './domain/application/commands';
import { authorizationUniqueConstraints } from './domain/authorization/commands';
import { registryInvalidationObserver } from './domain/events/invalidation';
import type { CommitObserver, UniqueConstraintErrors } from './domain/execute';
import { trustedDomainUniqueConstraints } from './domain/instance/trusted-domains';
import { tokenCacheObserver } from './domain/oidc/token-cache';
import { logoutDeliveryJob } from './domain/oidc/logout/delivery';
import { orgUniqueConstraints } from './domain/org/commands';
import { orgDomainUniqueConstraints } from './domain/org/domains';
import { projectUniqueConstraints } from './domain/project/commands';
import { projectGrantUniqueConstraints } from './domain/project/grants';
import { projectRoleUniqueConstraints } from './domain/project/roles';
import { writerMarksObserver } from './domain/read-your-writes';
import { userCountCompactionJob } from './domain/user/counts';
import { userUniqueConstraints } from './domain/user/add-users';
import { idpUniqueConstraints } from './domain/idp/links';
import type { Job } from './jobs';
import type { BearerResolver } from './authz/authenticate';
import type { Deps } from './deps';
import { oidcBearer } from './oidc/bearer';
import { notificationDeliveryJob } from './domain/notification/outbox';
import { m2mCleanupJob } from './oidc/grants/jwt-bearer';
import { keyRotationJob, oidcCleanupJob } from './oidc/jobs';

/**
 * What the process runs besides answering requests, written down in one place. Areas export their
 * jobs, commit observers, unique-constraint tables and bearer token resolvers as values; start() in
 * src/main.ts passes these lists on. None of these registers itself when imported, so a job stops
 * only if it is taken off this list, never because an unrelated import went away
 * (test/foundation/wiring.test.ts checks the lists). Caches join their server's invalidations when
 * that server first uses them (src/domain/cache.ts): a cache a server never used holds nothing to
 * invalidate.
 */

/** Periodic jobs, run by the process that prepares the database (the only process, or one cluster worker). */
export const backgroundJobs: readonly Job[] = [
  keyRotationJob,
  oidcCleanupJob,
  m2mCleanupJob,
  notificationDeliveryJob,
  userCountCompactionJob,
  logoutDeliveryJob,
];

/** Told of every command that appended events, around its commit. */
export const commitObservers: readonly CommitObserver[] = [
  tokenCacheObserver,
  registryInvalidationObserver,
  writerMarksObserver,
];

/**
 * Who else, besides personal access tokens, vouches for an `Authorization` header of the API and v1: each
 * made for one server (its issuer and master key) and asked in this order.
 */
export const bearerResolvers: readonly ((deps: Deps) => BearerResolver)[] = [oidcBearer];

/** Unique index of a projection → the domain error a command that violates it gets. */
export const uniqueConstraintErrors: UniqueConstraintErrors = {
  ...userUniqueConstraints,
  ...idpUniqueConstraints,
  ...orgUniqueConstraints,
  ...orgDomainUniqueConstraints,
  ...trustedDomainUniqueConstraints,
  ...projectUniqueConstraints,
  ...projectRoleUniqueConstraints,
  ...projectGrantUniqueConstraints,
  ...applicationUniqueConstraints,
  ...authorizationUniqueConstraints,
  ...administratorUniqueConstraints,
  ...factorUniqueConstraints,
};
