import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { connectOptionsOf } from '../../db/connect-options';

const HELP = `Usage: portcullis admin recover [--pat-file <file>] [--force]
       portcullis admin recover --user <login name> [--password-file <file>]

Gives the instance back to its operator when no owner can sign in any more (the last IAM_OWNER lost
its token, its password or its role, or the console application was removed). It works on the database
named by the same settings as \`portcullis start\` (DATABASE_URL, or PGlite in PORTCULLIS_DATA_DIR: stop
the server first, the embedded database allows one process). Every change is recorded as events.

Without --user it creates a new machine user holding IAM_OWNER and writes its personal access token to
a file. With --user it gives that human user a new password, which must be changed at the next
sign-in, makes the user active again and grants it IAM_OWNER. Either way it brings back the system
project and the console application if they are gone.

Options:
  --pat-file <file>       where to write the new token (default: the admin PAT file,
                          PORTCULLIS_ADMIN_PAT_FILE or <data dir>/admin.pat; an existing default file
                          is kept and the token goes to a new file next to it)
  --force                 overwrite the file named by --pat-file if it exists
  --user <login name>     reset this human administrator instead of creating a machine user
  --password-file <file>  the new password, from the file's first line (default: a generated one,
                          printed once)
  -h, --help              show this help

Exit status: 0 recovered, 1 wrong options or nothing could be recovered (the reason is printed).`;

const OPTIONS = {
  'pat-file': { type: 'string' },
  force: { type: 'boolean', default: false },
  user: { type: 'string' },
  'password-file': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** A reason the recovery cannot go on, told to the operator as it is. */
class RecoverError extends Error {}

const out = (line: string) => process.stdout.write(`${line}\n`);

export async function recoverAccess(args: string[]): Promise<number> {
  let values: { 'pat-file'?: string; force: boolean; user?: string; 'password-file'?: string; help?: boolean };
  try {
    ({ values } = parseArgs({ args, options: OPTIONS, strict: true, allowPositionals: false }));
    if (values.user !== undefined && (values['pat-file'] !== undefined || values.force))
      throw new RecoverError('--pat-file and --force go with a new machine user, not with --user');
    if (values['password-file'] !== undefined && values.user === undefined)
      throw new RecoverError('--password-file needs --user');
    if (values.user !== undefined && !values.user.trim()) throw new RecoverError('--user needs a login name');
  } catch (err) {
    process.stderr.write(`portcullis admin recover: ${(err as Error).message}\n\n${HELP}\n`);
    return 1;
  }
  if (values.help) {
    out(HELP);
    return 0;
  }
  try {
    return await recover(values);
  } catch (err) {
    // Settings, database and domain errors say what is wrong in their message; a stack helps nobody here.
    process.stderr.write(`portcullis admin recover: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
}

async function recover(values: {
  'pat-file'?: string;
  force: boolean;
  user?: string;
  'password-file'?: string;
}): Promise<number> {
  // The server code is loaded only here, so that --help and wrong options answer at once.
  const { loadConfig } = await import('../../config');
  const config = loadConfig();
  // The password is read before the database is opened: a wrong path is told without side effects.
  const password = values['password-file'] === undefined ? undefined : readPassword(values['password-file']);
  if (values['pat-file'] !== undefined) choosePatFile(values['pat-file'], values.force, config);
  if (config.inMemory && !config.databaseUrl)
    throw new RecoverError('PORTCULLIS_DATA_DIR is memory://: an in-memory database holds nothing to recover');
  if (!config.databaseUrl && !fs.existsSync(path.join(config.dataDir, 'pgdata')))
    throw new RecoverError(`there is no database in ${config.dataDir}: set DATABASE_URL or PORTCULLIS_DATA_DIR`);
  const { connectWithRetry } = await import('../../db/client');
  const { pendingMigrations } = await import('../../db/migrate');
  const { wireCommands } = await import('../../domain/execute');
  const { commitObservers, uniqueConstraintErrors } = await import('../../wiring');
  const recovery = await import('../../domain/recover');
  const { ensureConsoleClient } = await import('../../console/system-client');
  const { settleDatabaseFolder } = await import('../../crypto/keys/database-folder');
  const { Runtime } = await import('../../deps');
  // a database to recover exists already: a missing one is reported, not made
  const database = await connectWithRetry(connectOptionsOf(config, { poolSize: 1, createMissing: false }));
  const target = { database, runtime: new Runtime() };
  // As on a start: the commands' observers tell running servers which cached entries are stale.
  wireCommands(target.runtime, { observers: commitObservers, uniqueConstraintErrors });
  try {
    const pending = await pendingMigrations(database);
    if (pending.length)
      throw new RecoverError(`the database lacks migrations of this version (${pending.join(', ')}): start it once`);
    // The default PAT file is in the folder the start uses for this database.
    await settleDatabaseFolder(config, database);
    const patFile = values.user === undefined ? choosePatFile(values['pat-file'], values.force, config) : undefined;
    if (values.user !== undefined) {
      const generated = password === undefined;
      const chosen = password ?? (await import('../../crypto/random')).randomPassword();
      const user = await recovery.recoverHuman(target, { loginName: values.user, password: chosen });
      out(`The user "${user.username}" (${user.userId}) holds IAM_OWNER and is active.`);
      if (generated) out(`Its new password (shown only now; it must be changed at the next sign-in): ${chosen}`);
      else out('It signs in with the password from the file and must change it then.');
    } else {
      const machine = await recovery.recoverWithMachine(target);
      writeNewFile(patFile!, `${machine.pat}\n`, values.force);
      out(`The machine user "${machine.username}" (${machine.userId}) holds IAM_OWNER.`);
      out(`Its personal access token is in ${patFile}`);
    }
    for (const what of await recovery.restoreSystemResources(target)) out(`Restored ${what}.`);
    const clientId = await ensureConsoleClient(target, config.externalUrl);
    out(clientId ? `The console signs in with client ${clientId}: ${config.externalUrl}/ui/console/` : 'No console.');
    return 0;
  } finally {
    await database.close();
  }
}

function readPassword(file: string): string {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new RecoverError(`cannot read --password-file ${file}: ${(err as NodeJS.ErrnoException).code ?? err}`);
  }
  const password = text.split(/\r?\n/)[0];
  if (!password) throw new RecoverError(`--password-file ${file}: its first line is empty`);
  return password;
}

/**
 * The file the token goes to. A file the operator named is overwritten only with --force; the default
 * file may hold the token of the first start, which is kept: the new token goes next to it.
 */
function choosePatFile(named: string | undefined, force: boolean, config: { adminPatFile?: string }): string {
  if (named !== undefined) {
    if (!named) throw new RecoverError('--pat-file needs a file name');
    if (fs.existsSync(named) && !force)
      throw new RecoverError(`${named} exists: pass --force to overwrite it, or name another --pat-file`);
    return path.resolve(named);
  }
  if (!config.adminPatFile)
    throw new RecoverError('there is no data folder to write the token to: name a file with --pat-file');
  const file = path.resolve(config.adminPatFile);
  if (!fs.existsSync(file)) return file;
  const stamp = new Date().toISOString().replace(/\D/g, '').slice(0, 14);
  const { dir, name, ext } = path.parse(file);
  for (let n = 0; ; n++) {
    const next = path.join(dir, `${name}-recovery-${stamp}${n ? `-${n}` : ''}${ext}`);
    if (!fs.existsSync(next)) return next;
  }
}

/** Writes a file only its owner can read; an existing one only when overwriting was asked for. */
function writeNewFile(file: string, content: string, overwrite: boolean): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content, { mode: 0o600, flag: overwrite ? 'w' : 'wx' });
  fs.chmodSync(file, 0o600);
}
