import { type ChildProcess, spawn } from 'node:child_process';
import { freePort, ROOT } from './server';

export interface Peer {
  url: string;
  secret: string;
  userinfoTokens: string[];
  process: ChildProcess;
  stop(): Promise<void>;
}

/** Starts node-oidc-provider (bench/peer/server.ts) in its own process and waits for its ready line. */
export async function startPeer(profile: string | false = false): Promise<Peer> {
  const port = await freePort();
  const args = ['--import', 'tsx'];
  if (profile) args.push('--cpu-prof', `--cpu-prof-dir=${ROOT}/bench/results/profiles/${profile}-peer`);
  const child = spawn(process.execPath, [...args, 'bench/peer/server.ts'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, PORT: String(port), NODE_ENV: 'production' },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const ready = await new Promise<{ issuer: string; secret: string; userinfoTokens: string[] }>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error('peer did not start in 60 s')), 60_000);
    child.stdout!.on('data', (d) => {
      out += d;
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line && out.includes('\n', out.indexOf(line))) {
        clearTimeout(timer);
        resolve(JSON.parse(line));
      }
    });
    child.once('exit', (code) => reject(new Error(`peer exited with ${code}`)));
  });
  return {
    url: ready.issuer,
    secret: ready.secret,
    userinfoTokens: ready.userinfoTokens,
    process: child,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
