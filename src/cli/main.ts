import { fileURLToPath } from 'node:url';
import { adminCommand } from './admin';
import type { Command } from './commands';
import { migrateCommand } from './migrate';
import { startCommand } from './start';

/** The subcommands, in the order `portcullis help` lists them. */
const commands: readonly Command[] = [startCommand, migrateCommand, adminCommand];

export function usage(): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  return [
    'Usage: portcullis <command> [options]',
    '',
    'Commands:',
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'Run `portcullis <command> --help` for the options of a command.',
  ].join('\n');
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(`${usage()}\n`);
    return name ? 0 : 2;
  }
  const command = commands.find((c) => c.name === name);
  if (!command) {
    process.stderr.write(`portcullis: unknown command "${name}"\n\n${usage()}\n`);
    return 2;
  }
  return command.run(rest);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.exitCode = await main(process.argv.slice(2));
}
