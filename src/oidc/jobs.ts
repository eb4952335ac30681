import { loadMasterKey } from '../crypto/keys/master-key';
import { sourceOf } from '../deps';
import { pruneUsedAssertions } from '../domain/oidc/client-assertion';
import { pruneExpiredIntents } from '../domain/idp/intents/prune';
import { pruneExpiredOidcRows } from '../domain/oidc/cleanup';
import { pruneUnusedRegisteredClients } from '../domain/application/registration/prune';
import { getInstanceSettings } from '../domain/instance/settings';
import { rotateKeysIfDue } from '../domain/oidc/web-keys';
import { pruneAbandonedPasskeySignIns } from '../domain/session/passkey-sign-in';
import type { Job } from '../jobs';
import { oidcCtx } from './env';

/**
 * Signing key rotation on the PORTCULLIS_KEY_ROTATION_INTERVAL schedule. The job ticks every 15
 * seconds and rotates only when the active key is older than the interval; the database lock inside
 * makes concurrent replicas agree.
 */
export const keyRotationJob: Job = {
  name: 'oidc-key-rotation',
  intervalMs: 15_000,
  async run(deps) {
    await rotateKeysIfDue(
      oidcCtx(deps, 'oidc/key-rotation'),
      loadMasterKey(deps.config),
      deps.config.keyRotationIntervalMs,
    );
    await pruneUsedAssertions(deps.database.db);
  },
};

/**
 * Hourly: forget expired auth requests, codes and tokens, passkey sign-ins never finished, and
 * self-registered clients never used within the instance's unused-client lifetime.
 */
export const oidcCleanupJob: Job = {
  name: 'oidc-cleanup',
  intervalMs: 3_600_000,
  async run(deps) {
    await pruneExpiredOidcRows(deps.database.db);
    await pruneAbandonedPasskeySignIns(deps.database.db);
    await pruneExpiredIntents(deps.database.db);
    const settings = await getInstanceSettings(sourceOf(deps), deps.instanceId);
    await pruneUnusedRegisteredClients(
      oidcCtx(deps, 'oidc/registration-cleanup'),
      settings.dynamicRegistrationUnusedClientLifetimeSeconds,
    );
  },
};
