import { randomInt } from 'node:crypto';

// Time-ordered numeric ids (like snowflakes): milliseconds since 2024-01-01, a per-process counter
// and random bits, so ids from several replicas do not collide and sort roughly by creation time.
const EPOCH = 1704067200000n;
let lastMs = 0n;
let counter = 0n;
const node = BigInt(randomInt(0, 1024));

export function newId(): string {
  let ms = BigInt(Date.now()) - EPOCH;
  if (ms <= lastMs) {
    counter++;
    if (counter > 4095n) {
      lastMs++;
      counter = 0n;
    }
    ms = lastMs;
  } else {
    lastMs = ms;
    counter = 0n;
  }
  return ((ms << 22n) | (node << 12n) | counter).toString();
}
