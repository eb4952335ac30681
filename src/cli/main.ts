import { fileURLToPath } from 'node:url';
import { startCommand } from './start';

export interface Command {
  name: string;
  summary: string;
  run(args: string[]): Promise<number>;
}

const commands: Command[] = [startCommand];

/** Registers a subcommand (areas add theirs, e.g. `migrate`). */
export function addCommand(command: Command): void {
  commands.push(command);
}

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
  await import('./migrate').catch((err) => {
    if (err?.code !== 'ERR_MODULE_NOT_FOUND' && err?.code !== 'ERR_UNSUPPORTED_DIR_IMPORT') throw err;
  });
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
