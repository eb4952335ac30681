import type { CreateUserResult, PreparedCreate } from './create-user-input';
import { applyCreates } from './apply-creates';
import { perServer } from '../../deps';
import type { Ctx } from '../context';
import { DomainError } from '../errors';
import { execute } from '../execute';

/**
 * Group commit for CreateUser. Requests that arrive while earlier batches are being written wait
 * and go to the database together: one transaction, one multi-row insert of users, one insert of
 * their events, one commit. Each request is answered when its row is durable. Under light load a
 * batch holds one request and nothing waits. A batch that fails as a whole (e.g. one username is
 * taken) is replayed one create per transaction, so each request gets its own answer and a failed
 * create leaves no event behind.
 *
 * Batches only combine requests with the same editor and service, since events record those.
 */
const MAX_BATCH = 128;
// One batch in flight per editor and process: requests arriving meanwhile form the next batch. More
// batches in flight made them smaller and cost more CPU per create than the overlap gained (bench/users.ts).
const MAX_IN_FLIGHT = 1;

interface Entry {
  ctx: Ctx;
  create: PreparedCreate;
  resolve: (r: CreateUserResult) => void;
  reject: (e: unknown) => void;
}

interface Queue {
  entries: Entry[];
  inFlight: number;
}

/** Each server's queues by the database handle the requests came with, then by editor. */
const queues = perServer(() => new WeakMap<object, Map<string, Queue>>());

export function submitCreate(ctx: Ctx, create: PreparedCreate): Promise<CreateUserResult> {
  const ofServer = ctx.runtime.get(queues);
  let byEditor = ofServer.get(ctx.db);
  if (!byEditor) {
    byEditor = new Map();
    ofServer.set(ctx.db, byEditor);
  }
  const key = `${ctx.instanceId}\u0000${ctx.principal.userId}\u0000${ctx.service}`;
  let queue = byEditor.get(key);
  if (!queue) {
    queue = { entries: [], inFlight: 0 };
    byEditor.set(key, queue);
  }
  const q = queue;
  const map = byEditor;
  return new Promise<CreateUserResult>((resolve, reject) => {
    q.entries.push({ ctx, create, resolve, reject });
    if (q.inFlight < MAX_IN_FLIGHT) void drain(q, () => map.delete(key));
  });
}

async function drain(q: Queue, onIdle: () => void): Promise<void> {
  q.inFlight++;
  try {
    while (q.entries.length) await writeBatch(q.entries.splice(0, MAX_BATCH));
  } finally {
    q.inFlight--;
    if (q.inFlight === 0 && q.entries.length === 0) onIdle();
  }
}

async function writeBatch(batch: Entry[]): Promise<void> {
  try {
    const results = await execute(batch[0].ctx, (scope) =>
      applyCreates(
        scope,
        batch.map((e) => e.create),
      ),
    );
    for (const [i, r] of results.entries()) {
      if (r instanceof DomainError) batch[i].reject(r);
      else batch[i].resolve(r);
    }
  } catch (err) {
    if (batch.length === 1) {
      batch[0].reject(err);
      return;
    }
    await Promise.all(
      batch.map(async (e) => {
        try {
          const [r] = await execute(e.ctx, (scope) => applyCreates(scope, [e.create]));
          if (r instanceof DomainError) e.reject(r);
          else e.resolve(r);
        } catch (single) {
          e.reject(single);
        }
      }),
    );
  }
}
