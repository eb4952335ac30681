import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usage } from '../../src/cli/main';
import type { Ctx } from '../../src/domain/context';
import { DomainError } from '../../src/domain/errors';
import { constraintError, execute } from '../../src/domain/execute';
import { tokenCacheObserver } from '../../src/domain/oidc/token-cache';
import { addOrg } from '../../src/domain/org/commands';
import { bearerResolvers, commitObservers, uniqueConstraintErrors } from '../../src/wiring';
import { oidcBearer } from '../../src/oidc/bearer';
import { registryInvalidationObserver } from '../../src/domain/events/invalidation';
import { startTestServer, type TestServer } from '../helpers/server';
import { systemCtx } from '../helpers/context';

/**
 * Unique indexes a command cannot run into with what a caller sends, so they need no domain error:
 * ids the server generates, upserts, and rows that only background work or the OIDC flows write.
 * Whoever adds a unique index decides which side it belongs on; this test fails until they do.
 */
const NOT_A_CALLER_CONFLICT: Record<string, string> = {
  events_aggregate_sequence_uq: 'a concurrent writer: execute() retries, then answers ABORTED',
  events_pkey: 'generated position',
  instances_pkey: 'one instance, created by bootstrap',
  instances_singleton_unique: 'one instance, created by bootstrap',
  access_tokens_pkey: 'generated id',
  auth_codes_pkey: 'generated code',
  auth_requests_pkey: 'generated id',
  oidc_grants_pkey: 'generated id',
  refresh_tokens_pkey: 'generated id',
  sessions_pkey: 'generated id',
  idp_intents_pkey: 'generated id',
  idp_intents_state_uq: 'hash of a generated state',
  sessions_token_hash_uq: 'hash of a generated token',
  personal_access_tokens_pkey: 'generated id',
  pats_hash_uq: 'hash of a generated token',
  application_keys_pkey: 'generated id',
  user_keys_pkey: 'generated id',
  authorizations_pkey: 'generated id (duplicates are caught by authorizations_user_project_org_uq)',
  project_grants_pkey: 'generated id (duplicates are caught by project_grants_project_org_uq)',
  notifications_pkey: 'generated id',
  web_keys_pkey: 'generated id',
  used_assertions_pkey: 'written with on conflict do nothing',
  m2m_used_assertions_pkey: 'written with on conflict do nothing',
  m2m_revoked_tokens_pkey: 'written with on conflict do nothing',
  dpop_used_proofs_pkey: 'written with on conflict do nothing (DPoP proof replay check)',
  user_codes_user_id_kind_pk: 'upserted',
  user_metadata_user_id_key_pk: 'upserted',
  org_metadata_org_id_key_pk: 'upserted',
  user_factors_pkey: 'generated id',
  recovery_codes_pkey: 'generated id',
  logout_deliveries_pkey: 'generated id',
  pushed_requests_pkey: 'generated id',
  pushed_requests_uri_hash_uq: 'hash of a generated request_uri',
  device_authorizations_pkey: 'generated id',
  device_authorizations_device_code_idx: 'hash of a generated token',
  device_authorizations_user_code_idx: 'written with on conflict do nothing (a taken code is drawn again)',
};

/**
 * The composition root's lists (src/wiring.ts) are what makes jobs run and conflicts turn into domain
 * errors; nothing registers itself at import any more. These checks fail when an entry goes missing.
 */
describe('wiring', () => {
  let server: TestServer;
  let ctx: Ctx;
  beforeAll(async () => {
    server = await startTestServer();
    ctx = systemCtx(server);
  });
  afterAll(() => server?.stop());

  it('runs every background job', () => {
    expect(server.app.jobs?.names).toEqual([
      'oidc-key-rotation',
      'oidc-cleanup',
      'm2m-cleanup',
      'notification-delivery',
      'user-count-compaction',
      'backchannel-logout-delivery',
    ]);
  });

  it('tells the access token cache of every commit', () => {
    expect(commitObservers).toContain(tokenCacheObserver);
  });

  it('evicts at every commit the caches the event registry declares', () => {
    expect(commitObservers).toContain(registryInvalidationObserver);
  });

  it("lets the API accept the OIDC layer's access tokens", () => {
    expect(bearerResolvers).toContain(oidcBearer);
  });

  it('maps every unique index a caller can run into to a domain error, and names only real indexes', async () => {
    const result = await ctx.db.execute(
      `select indexname from pg_indexes
       where schemaname = 'public' and indexdef like 'CREATE UNIQUE%'
       order by indexname`,
    );
    const indexes: string[] = ((result as { rows?: unknown[] }).rows ?? (result as unknown[])).map(
      (r) => (r as { indexname: string }).indexname,
    );
    const mapped = Object.keys(uniqueConstraintErrors);
    expect(mapped.filter((name) => !indexes.includes(name))).toEqual([]);
    expect(mapped.filter((name) => name in NOT_A_CALLER_CONFLICT)).toEqual([]);
    expect(indexes.filter((name) => !mapped.includes(name) && !(name in NOT_A_CALLER_CONFLICT))).toEqual([]);
    for (const name of mapped) {
      const error = constraintError(ctx.runtime, name);
      expect(error, name).toBeInstanceOf(DomainError);
      expect(error.kind, name).toBe('already_exists');
      expect(error.key, name).not.toBe('Errors.AlreadyExists');
    }
  });

  it('turns a violated unique index into its domain error', async () => {
    await execute(ctx, (scope) => addOrg(scope, { name: 'Wiring Org', instanceDomain: 'localhost' }));
    const again = execute(ctx, (scope) => addOrg(scope, { name: 'Wiring Org', instanceDomain: 'localhost' }));
    await expect(again).rejects.toMatchObject({ kind: 'already_exists', key: 'Errors.Org.AlreadyExisting' });
  });

  it('lists every CLI command', () => {
    expect(usage()).toMatch(/^ {2}start +start the server/m);
    expect(usage()).toMatch(/^ {2}migrate +convert an export/m);
  });
});
