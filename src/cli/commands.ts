/** A `portcullis` subcommand. Each lives in its own file and registers itself with addCommand. */
export interface Command {
  name: string;
  summary: string;
  run(args: string[]): Promise<number>;
}

export const commands: Command[] = [];

export function addCommand(command: Command): void {
  commands.push(command);
}
