import { execFileSync } from 'node:child_process';
import os from 'node:os';
import { ROOT } from './server';

export interface MachineInfo {
  cpu: string;
  cores: number;
  memoryGb: number;
  node: string;
  postgres: string;
  commit: string;
  date: string;
  versions: Record<string, string>;
}

export function machineInfo(): MachineInfo {
  const pkg = (name: string) => {
    try {
      return JSON.parse(
        execFileSync('node', ['-p', `JSON.stringify(require('${name}/package.json').version)`], {
          cwd: ROOT,
          encoding: 'utf8',
        }),
      );
    } catch {
      return 'unknown';
    }
  };
  let postgres = 'unknown';
  try {
    postgres = execFileSync('psql', ['--version'], { encoding: 'utf8' }).trim();
  } catch {}
  let commit = 'unknown';
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
  } catch {}
  return {
    cpu: os.cpus()[0]?.model ?? 'unknown',
    cores: os.availableParallelism(),
    memoryGb: Math.round(os.totalmem() / 1024 ** 3),
    node: process.version,
    postgres,
    commit,
    date: new Date().toISOString(),
    versions: { 'oidc-provider': pkg('oidc-provider'), autocannon: pkg('autocannon'), portcullis: pkg('./') },
  };
}
