import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { workerEnv, workerExecArgv } from '../../src/cli/heap';

const ROOT = path.resolve(import.meta.dirname, '../..');

describe('heap sizes of the cluster processes', () => {
  it('forks workers with a bounded young and old generation, keeping the options node was started with', () => {
    expect(workerExecArgv(['--import', 'tsx'], '')).toEqual([
      '--import',
      'tsx',
      '--max-semi-space-size=16',
      '--max-old-space-size=1024',
    ]);
  });

  it("leaves a heap size the operator chose on node's command line or in NODE_OPTIONS to the operator", () => {
    expect(workerExecArgv(['--max-old-space-size=4096'], '')).toEqual([
      '--max-old-space-size=4096',
      '--max-semi-space-size=16',
    ]);
    expect(workerExecArgv([], '--enable-source-maps --max_semi_space_size=32')).toEqual(['--max-old-space-size=1024']);
  });

  it("forks workers with two malloc arenas and fixed malloc thresholds, unless the operator set glibc's", () => {
    const tunables = 'glibc.malloc.mmap_threshold=131072:glibc.malloc.trim_threshold=131072';
    expect(workerEnv({})).toEqual({ MALLOC_ARENA_MAX: '2', GLIBC_TUNABLES: tunables });
    expect(workerEnv({ MALLOC_ARENA_MAX: '8' })).toEqual({ GLIBC_TUNABLES: tunables });
    expect(workerEnv({ MALLOC_ARENA_MAX: '8', GLIBC_TUNABLES: 'glibc.malloc.tcache_count=0' })).toEqual({});
  });

  /** The largest the young generation grows to while a process allocates 3 million short-lived objects. */
  function youngGenerationMb(setup: string, nodeOptions = ''): number {
    const script = `
      import v8 from 'node:v8';
      import { keepYoungGenerationSmall } from './src/cli/heap.ts';
      ${setup}
      let keep = [];
      for (let i = 0; i < 3e6; i++) { keep.push({ i, s: 'x' + i }); if (keep.length > 100000) keep = []; }
      const young = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
      process.stdout.write(String(young.space_size / 1048576));`;
    const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, NODE_OPTIONS: nodeOptions },
      encoding: 'utf8',
    });
    return Number(out);
  }

  it('keeps the young generation of the primary, which serves nothing, at its initial size', () => {
    // Loading the test's own modules may grow it a little before the call (more on a busy machine), as the
    // start command's reading of the settings does; left alone, V8 grows it to 128 MB on a machine with
    // gigabytes (the operator's 16 MB semi-spaces show the same allocations growing it to 32 MB or more).
    expect(youngGenerationMb('keepYoungGenerationSmall();')).toBeLessThanOrEqual(16);
    expect(youngGenerationMb('keepYoungGenerationSmall();', '--max-semi-space-size=16')).toBeGreaterThanOrEqual(32);
  });
});
