import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
// the grammar the server reads the import body's timeout with, so a --timeout passed here is one it takes
import { parseDuration } from '../../../domain/validate/duration';
import { convert, ExportError, ReadError } from './convert';
import { FileSink } from './file-sink';
import { InputError, resolveInputs } from './inputs';
import { JsonSyntaxError } from './json-errors';
import type { ImportSink } from './sink';
import { UploadError, UploadSink } from './upload-sink';
import { PLACEHOLDER_EMAIL_DOMAIN } from './user';

const HELP = `Usage: portcullis migrate keycloak --org=<ORG_ID> --realm=<export_file> [options]

Converts a Keycloak realm export (JSON, exported with users) into the body of POST /admin/v1/import.

Options:
  --org=<id>                  target organization id (required)
  --realm=<path>              realm export file, a <realm>-users-N.json file, a directory holding
                              both, or - for standard input; repeat for several files (required)
  --output=<path>             where to write the import body (default ./importBody.json)
  --timeout=<duration>        import timeout written into the body (default 5m0s)
  --multiline                 pretty-print the body
  --realm-name=<name>         the realm to convert when the export holds several
  --org-name=<name>           organization name (default: the realm's display name, else its name)
  --id-prefix=<prefix>        put <prefix> before every Keycloak user id (user ids are unique in the
                              instance: use it for a copy of a realm that is already imported)
  --include-without-password  import users without a usable password credential, without password
                              (default: report and skip them; users linked to an identity provider
                              that is converted are imported without password in any case)
  --idp-secrets=<path>        JSON file {"<alias>": "<client secret>"} for identity providers whose
                              secret the export masks (a partial export from the admin console)
  --url=<server>              send the users to <server>/admin/v1/import instead of writing a file
  --token-file=<path>         file holding the bearer token (a PAT of an IAM_OWNER) for --url
  --batch-size=<n>            users per import request with --url (default 1000)
  -h, --help                  show this help

The realm's identity providers become the body's idps (ids <org>-idp-<alias>) and the users'
federated identities its userLinks; providers that cannot be converted are listed with the reason.
Users without email get the placeholder <user id>@${PLACEHOLDER_EMAIL_DOMAIN} (unverified).
Exit status: 0 converted, 1 unreadable or invalid export or failed import, 2 wrong options.`;

const OPTIONS = {
  org: { type: 'string' },
  realm: { type: 'string', multiple: true },
  output: { type: 'string' },
  timeout: { type: 'string', default: '5m0s' },
  multiline: { type: 'boolean', default: false },
  'realm-name': { type: 'string' },
  'org-name': { type: 'string' },
  'id-prefix': { type: 'string' },
  'include-without-password': { type: 'boolean', default: false },
  'idp-secrets': { type: 'string' },
  url: { type: 'string' },
  'token-file': { type: 'string' },
  'batch-size': { type: 'string', default: '1000' },
  help: { type: 'boolean', short: 'h' },
} as const;

class UsageError extends Error {}

/** Combines sinks so that --url and an explicit --output can be used together. */
function both(a: ImportSink, b: ImportSink): ImportSink {
  return {
    add: (u, m, l) => {
      a.add(u, m, l);
      b.add(u, m, l);
    },
    flush: async (org) => {
      await a.flush(org);
      await b.flush(org);
    },
    finish: async (org, idps) => {
      await a.finish(org, idps);
      await b.finish(org, idps);
    },
    abort: async () => {
      await a.abort();
      await b.abort();
    },
  };
}

async function buildSink(
  values: Record<string, any>,
  orgId: string,
): Promise<{ sink: ImportSink; upload?: UploadSink }> {
  const timeout = values.timeout as string;
  const file = () => new FileSink(values.output ?? './importBody.json', orgId, timeout, values.multiline);
  if (!values.url) return { sink: file() };
  if (!values['token-file']) throw new UsageError('--url needs --token-file');
  try {
    new URL(values.url);
  } catch {
    throw new UsageError(`--url is not a URL: ${values.url}`);
  }
  const batchSize = Number(values['batch-size']);
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new UsageError('--batch-size must be a positive integer');
  let token: string;
  try {
    token = (await readFile(values['token-file'], 'utf8')).trim();
  } catch (err) {
    throw new InputError(`cannot read --token-file ${values['token-file']}: ${(err as Error).message}`);
  }
  if (!token) throw new InputError(`--token-file ${values['token-file']} is empty`);
  const tty = process.stderr.isTTY;
  const upload = new UploadSink(values.url, token, timeout, batchSize, (line, final) => {
    process.stderr.write(tty ? `\r${line}${final ? '\n' : ''}` : `${line}\n`);
  });
  return { sink: values.output ? both(upload, file()) : upload, upload };
}

/** The --idp-secrets file: a JSON object of strings by provider alias. */
async function readIdpSecrets(path: string): Promise<Record<string, string>> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(path, 'utf8'));
  } catch (err) {
    throw new InputError(`cannot read --idp-secrets ${path}: ${(err as Error).message}`);
  }
  const ok =
    parsed &&
    typeof parsed === 'object' &&
    !Array.isArray(parsed) &&
    Object.values(parsed).every((v) => typeof v === 'string');
  if (!ok) throw new InputError(`--idp-secrets ${path} must be a JSON object of strings by provider alias`);
  return parsed as Record<string, string>;
}

export async function migrateKeycloak(args: string[]): Promise<number> {
  const err = (line: string) => process.stderr.write(`${line}\n`);
  let values: Record<string, any>;
  try {
    ({ values } = parseArgs({ args, options: OPTIONS, strict: true, allowPositionals: false }));
  } catch (e) {
    err(`portcullis migrate keycloak: ${(e as Error).message}\n\n${HELP}`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  const orgId = (values.org ?? '').trim();
  const problem = !orgId
    ? '--org is required'
    : !values.realm?.length
      ? '--realm is required'
      : parseDuration(values.timeout) === undefined
        ? `--timeout must be a duration such as 5m0s, got "${values.timeout}"`
        : undefined;
  if (problem) {
    err(`portcullis migrate keycloak: ${problem}\n\n${HELP}`);
    return 2;
  }

  let sink: ImportSink | undefined;
  try {
    const inputs = await resolveInputs(values.realm);
    const idpSecrets = values['idp-secrets'] ? await readIdpSecrets(values['idp-secrets']) : undefined;
    const built = await buildSink(values, orgId);
    sink = built.sink;
    const summary = await convert({
      orgId,
      orgName: values['org-name'],
      idPrefix: values['id-prefix'],
      realmName: values['realm-name'],
      includeWithoutPassword: values['include-without-password'],
      idpSecrets,
      inputs,
      sink,
    });
    err(summary.render());
    if (!values.url || values.output) err(`Import body written to ${values.output ?? './importBody.json'}`);
    if (built.upload?.failed) {
      err(`${built.upload.failed} user(s) were refused by the server:`);
      for (const f of built.upload.failures) err(`  ${f}`);
      return 1;
    }
    return 0;
  } catch (e) {
    await sink?.abort().catch(() => {});
    if (e instanceof UsageError) {
      err(`portcullis migrate keycloak: ${e.message}\n\n${HELP}`);
      return 2;
    }
    if (
      e instanceof JsonSyntaxError ||
      e instanceof ReadError ||
      e instanceof InputError ||
      e instanceof ExportError ||
      e instanceof UploadError
    ) {
      err(`portcullis migrate keycloak: ${e.message}`);
      return 1;
    }
    throw e;
  }
}
