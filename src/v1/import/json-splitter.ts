/**
 * A streaming JSON reader for bodies too large to parse at once (the bulk import: a million users
 * is about 600 MB). It walks the containers the caller wants to descend into byte by byte and hands
 * every other value — each user, each organization property — to JSON.parse as one small slice, so
 * memory is bounded by the largest single value, not by the body.
 */
export type JsonPath = (string | number)[];

export type SplitEvent =
  | { kind: 'start'; path: JsonPath; container: 'object' | 'array' }
  | { kind: 'value'; path: JsonPath; value: unknown }
  | { kind: 'end'; path: JsonPath };

export class JsonBodyError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(`${message} at byte ${offset}`);
  }
}

/** A value parsed whole (one user, say) larger than this is refused rather than exhausting memory. */
const MAX_VALUE_BYTES = 64 * 1024 * 1024;
const MAX_DEPTH = 64;

enum S {
  Value,
  KeyOrEnd,
  Key,
  Colon,
  CommaOrEnd,
  ElementOrEnd,
  Done,
}

interface Frame {
  container: 'object' | 'array';
  path: JsonPath;
  key: string;
  index: number;
}

const isWs = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

export class JsonSplitter {
  private state = S.Value;
  private stack: Frame[] = [];
  private offset = 0;
  // the value being captured: its bytes so far, and how to tell where it ends
  private pieces: Buffer[] = [];
  private captured = 0;
  private capturing: 'container' | 'string' | 'primitive' | 'key' | undefined;
  private depth = 0;
  private inString = false;
  private escaped = false;
  private events: SplitEvent[] = [];

  /** `descend(path)`: whether the object or array at `path` is walked (its members reported one by one). */
  constructor(private readonly descend: (path: JsonPath) => boolean) {}

  /** Reads the next chunk; returns what it completed. */
  write(chunk: Buffer): SplitEvent[] {
    let start = this.capturing ? 0 : -1;
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk[i];
      if (this.capturing) {
        if (this.captureEnds(c)) {
          // A primitive ends at its delimiter, which is read again in the structural state.
          const end = this.capturing === 'primitive' ? i : i + 1;
          this.take(chunk, start, end);
          start = -1;
          this.finishCapture();
          if (end === i) i--;
        }
        continue;
      }
      if (isWs(c)) continue;
      const at = this.offset + i;
      switch (this.state) {
        case S.Value:
          if ((c === 0x7b || c === 0x5b) && this.descend(this.valuePath())) this.open(c === 0x7b ? 'object' : 'array');
          else {
            this.beginCapture(c, at);
            start = i;
            if (this.capturing === 'container') this.depth = 1;
          }
          break;
        case S.KeyOrEnd:
        case S.Key:
          if (c === 0x7d && this.state === S.KeyOrEnd) this.close();
          else if (c === QUOTE) {
            this.capturing = 'key';
            this.inString = true;
            start = i;
          } else throw new JsonBodyError('expected a property name', at);
          break;
        case S.Colon:
          if (c !== 0x3a) throw new JsonBodyError('expected ":"', at);
          this.state = S.Value;
          break;
        case S.ElementOrEnd:
          if (c === 0x5d) this.close();
          else {
            this.state = S.Value;
            i--;
          }
          break;
        case S.CommaOrEnd: {
          const top = this.stack[this.stack.length - 1];
          if (c === 0x2c) {
            if (top.container === 'array') {
              top.index++;
              this.state = S.Value;
            } else this.state = S.Key;
          } else if ((c === 0x7d && top.container === 'object') || (c === 0x5d && top.container === 'array'))
            this.close();
          else throw new JsonBodyError('expected "," or the end of the container', at);
          break;
        }
        case S.Done:
          throw new JsonBodyError('unexpected data after the end of the body', at);
      }
    }
    if (this.capturing && start >= 0) this.take(chunk, start, chunk.length);
    this.offset += chunk.length;
    const out = this.events;
    this.events = [];
    return out;
  }

  /** The body ended: anything unfinished is an error. */
  end(): SplitEvent[] {
    if (this.capturing === 'primitive') this.finishCapture();
    if (this.state !== S.Done || this.capturing) throw new JsonBodyError('the body ends too early', this.offset);
    return this.events;
  }

  private valuePath(): JsonPath {
    const top = this.stack[this.stack.length - 1];
    if (!top) return [];
    return [...top.path, top.container === 'array' ? top.index : top.key];
  }

  private open(container: 'object' | 'array') {
    if (this.stack.length >= MAX_DEPTH) throw new JsonBodyError('nested too deeply', this.offset);
    const path = this.valuePath();
    this.stack.push({ container, path, key: '', index: 0 });
    this.events.push({ kind: 'start', path, container });
    this.state = container === 'object' ? S.KeyOrEnd : S.ElementOrEnd;
  }

  private close() {
    const frame = this.stack.pop()!;
    this.events.push({ kind: 'end', path: frame.path });
    this.state = this.stack.length ? S.CommaOrEnd : S.Done;
  }

  private beginCapture(c: number, at: number) {
    if (c === 0x7b || c === 0x5b) this.capturing = 'container';
    else if (c === QUOTE) {
      this.capturing = 'string';
      this.inString = true;
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39) || c === 0x74 || c === 0x66 || c === 0x6e)
      this.capturing = 'primitive';
    else throw new JsonBodyError('expected a value', at);
  }

  /** Whether byte `c` ends the value being captured (strings and containers include it, primitives do not). */
  private captureEnds(c: number): boolean {
    if (this.inString) {
      if (this.escaped) this.escaped = false;
      else if (c === BACKSLASH) this.escaped = true;
      else if (c === QUOTE) {
        // The opening quote of a string value or key was read before capturing began: this closes it.
        this.inString = false;
        return this.capturing === 'string' || this.capturing === 'key';
      }
      return false;
    }
    if (this.capturing === 'primitive') return c === 0x2c || c === 0x7d || c === 0x5d || isWs(c);
    if (c === QUOTE) this.inString = true;
    else if (c === 0x7b || c === 0x5b) {
      this.depth++;
      if (this.depth > 10_000) throw new JsonBodyError('nested too deeply', this.offset);
    } else if (c === 0x7d || c === 0x5d) return --this.depth === 0;
    return false;
  }

  private take(chunk: Buffer, from: number, to: number) {
    if (to <= from) return;
    this.captured += to - from;
    if (this.captured > MAX_VALUE_BYTES)
      throw new JsonBodyError(`a single value is larger than ${MAX_VALUE_BYTES} bytes`, this.offset + from);
    this.pieces.push(chunk.subarray(from, to));
  }

  private finishCapture() {
    const text = Buffer.concat(this.pieces, this.captured).toString('utf8');
    const kind = this.capturing;
    this.pieces = [];
    this.captured = 0;
    this.capturing = undefined;
    this.depth = 0;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      throw new JsonBodyError(`invalid JSON (${(err as Error).message})`, this.offset);
    }
    if (kind === 'key') {
      this.stack[this.stack.length - 1].key = value as string;
      this.state = S.Colon;
      return;
    }
    this.events.push({ kind: 'value', path: this.valuePath(), value });
    this.state = this.stack.length ? S.CommaOrEnd : S.Done;
  }
}
