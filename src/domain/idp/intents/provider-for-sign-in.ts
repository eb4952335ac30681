import type { Db } from '../../../db/client';
import { failedPrecondition } from '../../errors';
import { type ProviderRow, findProvider, providerNotFound } from '../access';
import type { IdpOptions } from '../options';
import { type ProviderRuntime, runtimeOf } from '../runtime';
import { openSecrets } from '../secrets';
import type { ProviderSpec } from '../spec';

export interface SignInProvider {
  row: ProviderRow;
  spec: ProviderSpec;
  options: IdpOptions;
  runtime: ProviderRuntime;
}

/** An active provider with its decrypted runtime configuration, for a sign-in. */
export async function providerForSignIn(db: Db, masterKey: Buffer, id: string): Promise<SignInProvider> {
  const row = id ? await findProvider(db, id) : undefined;
  if (!row) throw providerNotFound();
  if (row.state !== 'ACTIVE') throw failedPrecondition('Errors.IdP.Inactive', 'the identity provider is not active');
  const spec = row.config as unknown as ProviderSpec;
  return { row, spec, options: row.options, runtime: runtimeOf(spec, openSecrets(masterKey, row.secrets)) };
}
