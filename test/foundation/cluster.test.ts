import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { onPostgres } from '../helpers/database';
import { waitFor } from '../helpers/process';
import { pidsLogging, withWorkers } from '../helpers/workers';

/** The process ids of the workers of the cluster whose primary is `primary`. */
function workersOf(primary: number): number[] {
  return fs
    .readFileSync(`/proc/${primary}/task/${primary}/children`, 'utf8')
    .trim()
    .split(/\s+/)
    .filter(Boolean)
    .map(Number);
}

describe.skipIf(!onPostgres)('the cluster', () => {
  it('one worker sends the outbox; when it crashes, the worker that replaces it does, not the other one', async () => {
    await withWorkers(async ({ base, pat, proc }) => {
      const rpc = async (procedure: string, body: unknown) => {
        // Refused while no worker listens (the other one may still be starting), or reset on a connection
        // kept alive to the worker that was killed: the request never arrived, so it is sent again.
        for (let attempt = 0; ; attempt++) {
          try {
            const res = await fetch(`${base}/portcullis.${procedure}`, {
              method: 'POST',
              headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${pat}` },
              body: JSON.stringify(body),
            });
            expect(res.status).toBe(200);
            return await res.json();
          } catch (err) {
            if (!(err instanceof TypeError) || attempt > 100) throw err;
            await new Promise((r) => setTimeout(r, 300));
          }
        }
      };
      const { instance } = await rpc('instance.v2.InstanceService/GetInstance', {});
      const createUser = (email: string) =>
        rpc('user.v2.UserService/CreateUser', {
          organizationId: instance.defaultOrganizationId,
          human: { profile: { givenName: 'Outbox', familyName: 'Test' }, email: { email } },
        });
      // Without SMTP the outbox job writes each message to the log, with the pid of the process that sent it.
      const sentBy = (email: string) =>
        pidsLogging(proc, new RegExp(`"recipient":"${email.replaceAll('.', '\\.')}".*no SMTP configured`));

      await createUser('first@example.com');
      const first = await waitFor(() => [...sentBy('first@example.com')][0], 30_000, 'the first message sent');
      const [other] = workersOf(proc.child.pid!).filter((pid) => pid !== first);
      expect(other).toBeDefined();

      process.kill(first, 'SIGKILL');
      const replacement = await waitFor(
        () => workersOf(proc.child.pid!).find((pid) => pid !== first && pid !== other),
        30_000,
        'a worker replacing the one that crashed',
      );
      await createUser('second@example.com');
      const second = await waitFor(
        () => (sentBy('second@example.com').size ? [...sentBy('second@example.com')] : undefined),
        30_000,
        'the second message sent',
      );
      expect(second).toEqual([replacement]);
      expect(sentBy('first@example.com')).toEqual(new Set([first]));
    });
  }, 120_000);

  it('forks its workers with bounded heaps and the allocator settings, and serves from them', async () => {
    await withWorkers(async ({ base, pat, proc }) => {
      const workers = workersOf(proc.child.pid!);
      expect(workers).toHaveLength(2);
      for (const pid of workers) {
        const argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
        expect(argv).toEqual(expect.arrayContaining(['--max-semi-space-size=16', '--max-old-space-size=1024']));
        // glibc splits GLIBC_TUNABLES at its colons in place when it reads it, so each part is looked for alone
        const env = fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
        expect(env).toEqual(
          expect.arrayContaining([
            'MALLOC_ARENA_MAX=2',
            'GLIBC_TUNABLES=glibc.malloc.mmap_threshold=131072',
            'glibc.malloc.trim_threshold=131072',
          ]),
        );
      }
      const res = await fetch(`${base}/portcullis.instance.v2.InstanceService/GetInstance`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${pat}` },
        body: '{}',
      });
      expect(res.status).toBe(200);
    });
  }, 120_000);
});
