import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseDuration } from '../../domain/validate/duration';
import { invalidArgument } from '../../domain/errors';
import { collectGarbage } from '../../domain/import/collect-garbage';
import type { StreamedOrg, UserBatch } from '../../domain/import/import-data';
import type { ImportOrg } from '../../domain/import/model';
import { camelKeys } from '../request';
import type { Obj } from '../shape';
import { toHuman, toMachine, toMetadata, toOrg } from './convert';
import { JsonBodyError, type JsonPath, JsonSplitter, type SplitEvent } from './json-splitter';

/**
 * The import body is read twice, never held whole: the first pass copies it into a temporary file
 * while checking all of it (JSON syntax, shape, every item's conversion), so a body that would be
 * refused is refused before anything is written; the second pass reads the file again and hands the
 * users to the import organization by organization, in batches. Memory stays bounded by a batch and
 * the organizations' small parts, however many users the body holds.
 */
export interface SpooledImport {
  dir: string;
  file: string;
  /** every organization without its users, by index in dataOrgs.orgs */
  heads: ImportOrg[];
  timeoutMs?: number;
}

/**
 * Users handed to the import at once. Each batch costs a few statements whatever its size, so
 * batches of 1,000 ran at a third of the speed; 5,000 users are a few MB of memory.
 */
const BATCH = 5000;
/** A full collection for every this many bytes checked keeps the first pass's memory flat. */
const GC_EVERY_BYTES = 16 * 1024 * 1024;
const USER_ARRAYS = new Set(['humanUsers', 'machineUsers', 'userMetadata']);

/** The body was larger than PORTCULLIS_BODY_LIMIT. */
export class BodyTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`the import body is larger than ${limit} bytes (PORTCULLIS_BODY_LIMIT)`);
  }
}

const camel = (k: string | number) =>
  typeof k === 'string' && k.includes('_') ? k.replace(/_([a-z0-9])/g, (_, ch: string) => ch.toUpperCase()) : k;

/** Walked structurally: the body, dataOrgs, its orgs array, each organization and its user arrays. */
function descend(raw: JsonPath): boolean {
  const p = raw.map(camel);
  if (p.length === 0) return true;
  if (p[0] !== 'dataOrgs') return false;
  if (p.length === 1) return true;
  if (p[1] !== 'orgs') return false;
  return p.length <= 3 || (p.length === 4 && USER_ARRAYS.has(p[3] as string));
}

const where = (p: JsonPath) => p.map((k, i) => (typeof k === 'number' ? `[${k}]` : i ? `.${k}` : k)).join('');

function item(
  p: JsonPath,
  value: unknown,
): { kind: string; value: ReturnType<typeof toHuman> | ReturnType<typeof toMachine> | ReturnType<typeof toMetadata> } {
  const at = where(p);
  const o = camelKeys(value);
  if (!o || typeof o !== 'object' || Array.isArray(o))
    throw invalidArgument('Errors.Import.Invalid', `${at} must be an object`);
  const kind = p[3] as string;
  const converted =
    kind === 'humanUsers'
      ? toHuman(o as Obj, at)
      : kind === 'machineUsers'
        ? toMachine(o as Obj, at)
        : toMetadata(o as Obj, at);
  return { kind, value: converted };
}

/** The first pass: every event of the body checked; the organizations' parts other than users kept. */
class Checker {
  heads: ImportOrg[] = [];
  timeoutMs?: number;
  private sawDataOrgs = false;
  private org: Obj | undefined;
  private orgIds = new Set<string>();

  handle(e: SplitEvent): void {
    const p = e.path.map(camel);
    const at = where(p);
    const container = (want: 'object' | 'array', nullable: boolean) => {
      const wrong =
        (e.kind === 'start' && e.container !== want) || (e.kind === 'value' && !(nullable && e.value === null));
      if (wrong)
        throw invalidArgument(
          'Errors.Import.Invalid',
          at ? `${at} must be an ${want}` : 'the request body must be a JSON object',
        );
    };
    if (p.length === 0) {
      container('object', false);
      return;
    }
    if (p[0] === 'timeout' && p.length === 1) {
      this.timeout(e);
      return;
    }
    if (p[0] !== 'dataOrgs') return;
    if (p.length === 1) {
      container('object', true);
      if (e.kind === 'start') this.sawDataOrgs = true;
      return;
    }
    if (p[1] !== 'orgs') return;
    if (p.length === 2) {
      container('array', true);
      return;
    }
    if (p.length === 3) {
      container('object', false);
      if (e.kind === 'start') this.org = {};
      else if (e.kind === 'end') this.finishOrg(p[2] as number);
      return;
    }
    const key = p[3] as string;
    if (p.length === 4) {
      if (USER_ARRAYS.has(key)) {
        container('array', true);
        return;
      }
      if (e.kind === 'value') this.org![key] = camelKeys(e.value);
      return;
    }
    if (e.kind === 'value') item(p, e.value);
  }

  finish(): void {
    if (!this.sawDataOrgs)
      throw invalidArgument(
        'Errors.Import.Invalid',
        'dataOrgs is required: the body must be {"dataOrgs": {"orgs": [...]}}',
      );
  }

  private finishOrg(index: number) {
    const path = `dataOrgs.orgs[${index}]`;
    const head = toOrg(this.org!, path);
    if (this.orgIds.has(head.orgId))
      throw invalidArgument('Errors.Import.Invalid', `${path}.orgId ${head.orgId} appears twice`);
    this.orgIds.add(head.orgId);
    this.heads[index] = head;
    this.org = undefined;
  }

  private timeout(e: SplitEvent) {
    if (e.kind !== 'value')
      throw invalidArgument('Errors.Import.Invalid', 'timeout must be a duration such as 5m0s or 300s');
    if (e.value === null) return;
    const raw = String(e.value);
    const ms = parseDuration(raw);
    if (ms === undefined)
      throw invalidArgument('Errors.Import.Invalid', `timeout must be a duration such as 5m0s or 300s; got "${raw}"`);
    // 0 means no timeout of its own
    this.timeoutMs = ms || undefined;
  }
}

/** First pass: copies the body into a temporary file and checks it. `limit` 0 means no limit. */
export async function spoolImportBody(body: AsyncIterable<Uint8Array> | null, limit: number): Promise<SpooledImport> {
  const dir = await mkdtemp(join(tmpdir(), 'portcullis-import-'));
  const file = join(dir, 'body.json');
  const out = createWriteStream(file);
  // A write still in flight when the body is refused fails once the stream is destroyed; that error
  // (and a real one, such as a full disk) must not go unhandled, which would end the process.
  let writeError: Error | undefined;
  out.on('error', (err) => {
    writeError ??= err;
  });
  const checker = new Checker();
  const splitter = new JsonSplitter(descend);
  let size = 0;
  try {
    for await (const chunk of body ?? []) {
      size += chunk.byteLength;
      if (limit > 0 && size > limit) throw new BodyTooLarge(limit);
      const buf = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      // Checking converts every user: collect its garbage as the import does (collect-garbage.ts).
      if (Math.floor(size / GC_EVERY_BYTES) !== Math.floor((size - buf.length) / GC_EVERY_BYTES)) collectGarbage();
      for (const e of splitter.write(buf)) checker.handle(e);
      if (!out.write(buf)) await once(out, 'drain');
      if (writeError) throw writeError;
    }
    if (size > 0) for (const e of splitter.end()) checker.handle(e);
    checker.finish();
    out.end();
    await once(out, 'close');
    if (writeError) throw writeError;
    return { dir, file, heads: checker.heads, timeoutMs: checker.timeoutMs };
  } catch (err) {
    out.destroy();
    await rm(dir, { recursive: true, force: true });
    if (err instanceof JsonBodyError)
      throw invalidArgument('Errors.Request.MalformedJson', `the request body is not valid JSON: ${err.message}`);
    if (err instanceof RangeError)
      throw invalidArgument('Errors.Request.MalformedJson', 'the request body is nested too deeply');
    throw err;
  }
}

export function discardSpooled(s: SpooledImport): Promise<void> {
  return rm(s.dir, { recursive: true, force: true });
}

async function* fileEvents(file: string): AsyncGenerator<SplitEvent> {
  const splitter = new JsonSplitter(descend);
  for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 })) yield* splitter.write(chunk as Buffer);
  yield* splitter.end();
}

const isOrgEnd = (e: SplitEvent) =>
  e.kind === 'end' && e.path.length === 3 && camel(e.path[0]) === 'dataOrgs' && camel(e.path[1]) === 'orgs';

/** Second pass: the organizations again, each with its users in batches read from the file. */
export async function* streamedOrgs(s: SpooledImport): AsyncGenerator<StreamedOrg> {
  const it = fileEvents(s.file)[Symbol.asyncIterator]();
  for (let next = await it.next(); !next.done; next = await it.next()) {
    const e = next.value;
    if (!(e.kind === 'start' && e.path.length === 3 && descend(e.path))) continue;
    let finished = false;
    async function* batches(): AsyncGenerator<UserBatch> {
      let batch: UserBatch = { humans: [], machines: [], metadata: [] };
      for (let n = await it.next(); !n.done; n = await it.next()) {
        const ev = n.value;
        if (isOrgEnd(ev)) {
          finished = true;
          break;
        }
        if (ev.kind !== 'value' || ev.path.length !== 5) continue;
        const { kind, value } = item(ev.path.map(camel), ev.value);
        if (kind === 'humanUsers') batch.humans.push(value as UserBatch['humans'][number]);
        else if (kind === 'machineUsers') batch.machines.push(value as UserBatch['machines'][number]);
        else batch.metadata.push(value as UserBatch['metadata'][number]);
        if (batch.humans.length + batch.machines.length + batch.metadata.length >= BATCH) {
          yield batch;
          batch = { humans: [], machines: [], metadata: [] };
        }
      }
      if (batch.humans.length + batch.machines.length + batch.metadata.length) yield batch;
    }
    yield { org: s.heads[e.path[2] as number], batches: readAhead(batches()) };
    // An organization that failed early (rolled back) leaves the rest of its users unread: skip them.
    while (!finished) {
      const n = await it.next();
      if (n.done || isOrgEnd(n.value)) break;
    }
  }
}

/**
 * Reads the next batch from the file while the import writes the current one, so parsing and the
 * database work overlap. Ending early waits for the batch in flight: the file is read in one place.
 */
async function* readAhead<T>(source: AsyncGenerator<T>): AsyncGenerator<T> {
  let pending = source.next();
  try {
    for (;;) {
      const current = await pending;
      if (current.done) return;
      pending = source.next();
      yield current.value;
    }
  } finally {
    await pending.catch(() => undefined);
    await source.return(undefined);
  }
}
