import type { Config } from '../config';
import type { Database } from '../db/client';
import type { BootstrapResult } from '../domain/bootstrap';

/** What `portcullis start` tells the operator once it serves: where, and on a first start how to sign in. */
export function announce(config: Config, databaseKind: Database['kind'], boot: BootstrapResult, workers: number) {
  const out = (line: string) => process.stdout.write(`${line}\n`);
  out(`Portcullis is listening on port ${config.port} (${workers} worker${workers > 1 ? 's' : ''}, ${databaseKind})`);
  out(`  URL:        ${config.externalUrl}`);
  out(`  Console:    ${config.externalUrl}/ui/console/`);
  out(`  Discovery:  ${config.externalUrl}/.well-known/openid-configuration`);
  if (boot.created) {
    out('First start: created the instance, the first organization and the administrators.');
    if (boot.generatedPassword) out(`  Login name "admin", generated password (shown only now): ${boot.adminPassword}`);
    else out('  Login name "admin" with the password from PORTCULLIS_ADMIN_PASSWORD');
  }
  // In a cluster the preparing worker settled where the file is (crypto/keys/database-folder.ts).
  const patFile = boot.patFile ?? config.adminPatFile;
  if (patFile) out(`  Admin PAT:  ${patFile}`);
  else if (boot.created) out('  Admin PAT:  not written (in-memory database without PORTCULLIS_ADMIN_PAT_FILE)');
}
