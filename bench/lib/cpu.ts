import fs from 'node:fs';

/** User+system CPU seconds of the server process tree and of the PostgreSQL backends serving `dbName` (Linux /proc). */
export function cpuSeconds(serverPid: number, dbName: string): { server: number; database: number } {
  const ticks = 100;
  let server = 0;
  let database = 0;
  const parents = new Map<number, number>();
  const times = new Map<number, number>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      parents.set(Number(entry), Number(fields[1]));
      times.set(Number(entry), (Number(fields[11]) + Number(fields[12])) / ticks);
      if (fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(dbName)) database += times.get(Number(entry))!;
    } catch {
      // the process ended while we looked
    }
  }
  for (const [pid, t] of times) {
    for (let p: number | undefined = pid; p && p > 1; p = parents.get(p)) {
      if (p === serverPid) {
        server += t;
        break;
      }
    }
  }
  return { server, database };
}
