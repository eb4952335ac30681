import cluster from 'node:cluster';
import { TokenBuckets } from './token-bucket';

export const COUNT_MESSAGE = 'portcullis:rate-limit';

/** One count a worker asks for; the primary answers it under the same id. */
export interface Count {
  id: number;
  key: string;
  capacity: number;
  windowSeconds: number;
}

/**
 * The IPC messages: a worker sends the counts its requests asked for in one turn of its event loop,
 * the primary answers them together. A message costs both processes far more than the counting (a
 * system call and a wake-up each way), so under load one message carries many counts.
 */
export interface CountBatch {
  type: typeof COUNT_MESSAGE;
  counts: Count[];
}
export interface CountAnswers {
  type: typeof COUNT_MESSAGE;
  /** [id, milliseconds until a token is back; 0 when the request may pass] */
  answers: [number, number][];
}

/**
 * The cluster primary keeps the token buckets of all its workers: they ask it over the IPC channel
 * that node:cluster opens, so a limit holds for the replica as a whole, however the connections are
 * spread. Runs before the first worker is forked.
 */
export function startRateLimitPrimary(): void {
  const buckets = new TokenBuckets();
  cluster.on('message', (worker, msg: CountBatch) => {
    if (msg?.type !== COUNT_MESSAGE) return;
    const now = Date.now();
    const answers = msg.counts.map((c): [number, number] => [
      c.id,
      buckets.take(c.key, c.capacity, c.windowSeconds, now),
    ]);
    worker.send({ type: COUNT_MESSAGE, answers } satisfies CountAnswers);
  });
}
