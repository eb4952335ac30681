import { createReadStream } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

/** One export file to read (or standard input). */
export interface Input {
  label: string;
  /** the bytes (Buffers from files and standard input; plain Uint8Arrays in the console) */
  open(): AsyncIterable<Uint8Array>;
}

export class InputError extends Error {}

const USERS_FILE = /^(.+)-users-(\d+)\.json$/;

// Small reads keep each chunk (and the users spanning two chunks) short-lived: with 1 MiB reads the
// peak RSS of a 1,000,000-user conversion was 100 MB higher, and it was no faster.
const fileInput = (path: string): Input => ({
  label: path,
  open: () => createReadStream(path, { highWaterMark: 64 * 1024 }),
});

/**
 * Expands the --realm arguments: `-` is standard input, a directory stands for its realm file(s)
 * followed by their `<realm>-users-N.json` files in numeric order (the layout `kc.sh export --dir` writes).
 */
export async function resolveInputs(args: string[]): Promise<Input[]> {
  const inputs: Input[] = [];
  for (const arg of args) {
    if (arg === '-') {
      inputs.push({ label: '<stdin>', open: () => process.stdin as AsyncIterable<Buffer> });
      continue;
    }
    let info: Awaited<ReturnType<typeof stat>>;
    try {
      info = await stat(arg);
    } catch (err) {
      const missing = (err as NodeJS.ErrnoException).code === 'ENOENT';
      throw new InputError(`cannot read ${arg}: ${missing ? 'no such file or directory' : (err as Error).message}`);
    }
    if (!info.isDirectory()) {
      inputs.push(fileInput(arg));
      continue;
    }
    const names = (await readdir(arg)).filter((n) => n.endsWith('.json'));
    const usersFiles = names
      .map((n) => ({ n, m: USERS_FILE.exec(n) }))
      .filter((x) => x.m)
      .sort((a, b) => a.m![1].localeCompare(b.m![1]) || Number(a.m![2]) - Number(b.m![2]))
      .map((x) => x.n);
    const realmFiles = names.filter((n) => !USERS_FILE.test(n)).sort();
    if (realmFiles.length + usersFiles.length === 0) throw new InputError(`${arg} holds no .json export files`);
    for (const n of [...realmFiles, ...usersFiles]) inputs.push(fileInput(join(arg, n)));
  }
  return inputs;
}
