import type { Command } from './commands';
import { recoverAccess } from './admin/recover';

const HELP = `Usage: portcullis admin <task> [options]

Tasks for someone with access to the database (settings from the environment, as for start):
  recover     give the instance an owner again (run \`portcullis admin recover --help\`)`;

const tasks: Record<string, (args: string[]) => Promise<number>> = { recover: recoverAccess };

export const adminCommand: Command = {
  name: 'admin',
  summary: 'recover: a new IAM_OWNER (PAT file) or a reset admin password, and the console client, from the database',
  async run(args) {
    const [task, ...rest] = args;
    if (!task || task === '--help' || task === '-h') {
      process.stdout.write(`${HELP}\n`);
      return task ? 0 : 1;
    }
    const run = tasks[task];
    if (!run) {
      process.stderr.write(`portcullis admin: unknown task "${task}"\n\n${HELP}\n`);
      return 1;
    }
    return run(rest);
  },
};
