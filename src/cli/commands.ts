/** A `portcullis` subcommand. Each lives in its own file; src/cli/main.ts lists them. */
export interface Command {
  name: string;
  summary: string;
  run(args: string[]): Promise<number>;
}
