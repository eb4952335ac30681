import type { Command } from './commands';
import { checkMigrations } from './migrate/check';
import { migrateKeycloak } from './migrate/keycloak/command';

const HELP = `Usage: portcullis migrate <source> [options]
       portcullis migrate --check

Converts an export of another identity provider into the body of POST /admin/v1/import.

Sources:
  keycloak    a Keycloak realm export (run \`portcullis migrate keycloak --help\`)

--check       exits 1 when the database (DATABASE_URL, or PGlite in PORTCULLIS_DATA_DIR) lacks migrations of
              this version and names them, 0 when it has them all, 2 when it cannot tell; changes nothing`;

/** Each source provider is one function taking the remaining arguments. */
const sources: Record<string, (args: string[]) => Promise<number>> = { keycloak: migrateKeycloak };

export const migrateCommand: Command = {
  name: 'migrate',
  summary: 'convert an export of another identity provider (keycloak) into an import body; --check: pending migrations',
  async run(args) {
    const [source, ...rest] = args;
    if (source === '--check') return checkMigrations();
    if (!source || source === '--help' || source === '-h') {
      process.stdout.write(`${HELP}\n`);
      return source ? 0 : 2;
    }
    const run = sources[source];
    if (!run) {
      process.stderr.write(`portcullis migrate: unknown source "${source}"\n\n${HELP}\n`);
      return 2;
    }
    return run(rest);
  },
};
