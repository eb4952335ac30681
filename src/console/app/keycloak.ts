// The conversion the CLI runs (`portcullis migrate keycloak`), imported rather than copied: those modules
// use no Node.js API, and test/foundation/layers.test.ts allows exactly these imports from browser code.
import { convert } from '../../cli/migrate/keycloak/convert';
import { MemorySink } from '../../cli/migrate/keycloak/memory-sink';
import type { ImportBody } from './import-body';

/**
 * Converts an uploaded Keycloak export (one file: a realm with its users, or a users file) into the v1
 * import body for the organization `orgId`, with the CLI's defaults; the summary is the CLI's report.
 */
export async function convertKeycloak(
  bytes: Uint8Array,
  orgId: string,
): Promise<{ body: ImportBody; users: number; report: string }> {
  const sink = new MemorySink();
  const summary = await convert({
    orgId,
    includeWithoutPassword: false,
    inputs: [
      {
        label: 'upload',
        open: async function* () {
          yield bytes;
        },
      },
    ],
    sink,
  });
  const body = sink.body as unknown as ImportBody;
  return { body, users: sink.body?.dataOrgs.orgs[0].humanUsers.length ?? 0, report: summary.render() };
}
