import type { Command } from './commands';
import { migrateKeycloak } from './migrate/keycloak/command';

const HELP = `Usage: portcullis migrate <source> [options]

Converts an export of another identity provider into the body of POST /admin/v1/import.

Sources:
  keycloak    a Keycloak realm export (run \`portcullis migrate keycloak --help\`)`;

/** Each source provider is one function taking the remaining arguments. */
const sources: Record<string, (args: string[]) => Promise<number>> = { keycloak: migrateKeycloak };

export const migrateCommand: Command = {
  name: 'migrate',
  summary: 'convert an export of another identity provider (keycloak) into an import body',
  async run(args) {
    const [source, ...rest] = args;
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
