import { advance, JsonSyntaxError, locateJsonError, type Position } from './json-errors';

// Bytes as Uint8Array, not Buffer: the console converts Keycloak exports in the browser with this code.
const UTF8 = new TextDecoder();
function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** What the scanner reports while it reads a realm export (a realm object, or an array of them). */
export interface ExportHandler {
  /** a realm object begins; `index` is its place in a multi-realm array export */
  realmStart(index: number | undefined): void;
  /** a realm property other than the `users` array, already parsed */
  field(key: string, value: unknown): void;
  /** one element of the realm's `users` array, parsed, with where it starts in the file */
  user(value: unknown, at: Position): void;
  realmEnd(): void;
}

/** A single value (a user, a realm property) larger than this is refused rather than exhausting memory. */
const MAX_VALUE_BYTES = 128 * 1024 * 1024;
const MAX_NESTING = 512;

enum State {
  Top,
  TopDone,
  ArrayElementOrEnd,
  ArrayElement,
  ArrayCommaOrEnd,
  KeyOrEnd,
  Key,
  Colon,
  Value,
  CommaOrEnd,
  UserOrEnd,
  User,
  UserCommaOrEnd,
}

enum Capture {
  Container,
  String,
  Primitive,
}

enum After {
  Key,
  Field,
  User,
}

const BOM = [0xef, 0xbb, 0xbf];
const isWs = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/**
 * A streaming reader for Keycloak exports. It walks the outer structure byte by byte and hands each
 * user (and each other realm property) to JSON.parse as one small slice, so memory stays bounded by
 * the largest single user however many users the file holds. Errors carry the file and position.
 */
export class ExportScanner {
  private state = State.Top;
  private inArray = false;
  private realmIndex = 0;
  private key = '';
  /** absolute offset of the current chunk's first byte, and of the current line's first byte */
  private base = 0;
  private lineStart = 0;
  private line = 1;

  private capturing = false;
  private capKind = Capture.Container;
  private after = After.Field;
  private capParts: Uint8Array[] = [];
  private capSize = 0;
  private capStart = 0;
  private capPos: Position = { offset: 0, line: 1, column: 1 };
  private capInString = false;
  private capEscape = false;
  private capStack = new Uint8Array(MAX_NESTING);
  private capDepth = 0;

  constructor(
    private readonly file: string,
    private readonly handler: ExportHandler,
  ) {}

  private position(i: number): Position {
    const offset = this.base + i;
    return { offset, line: this.line, column: offset - this.lineStart + 1 };
  }

  private fail(i: number, detail: string): never {
    throw new JsonSyntaxError(this.file, this.position(i), detail);
  }

  write(chunk: Uint8Array): void {
    let i = 0;
    const n = chunk.length;
    if (this.capturing) this.capStart = 0;
    while (i < n) {
      if (this.capturing) {
        i = this.captureRun(chunk, i);
        continue;
      }
      const c = chunk[i];
      if (isWs(c)) {
        if (c === 0x0a) {
          this.line++;
          this.lineStart = this.base + i + 1;
        }
        i++;
        continue;
      }
      i = this.structural(chunk, i, c);
    }
    if (this.capturing) {
      const rest = chunk.subarray(this.capStart);
      this.capParts.push(rest);
      this.capSize += rest.length;
      if (this.capSize > MAX_VALUE_BYTES) this.fail(n, `a single value is larger than ${MAX_VALUE_BYTES >> 20} MiB`);
    }
    this.base += n;
  }

  end(): void {
    if (this.capturing && this.capKind === Capture.Primitive) this.finish(new Uint8Array(0), 0);
    if (this.state !== State.TopDone) {
      const detail = this.state === State.Top ? 'the file is empty' : 'unexpected end of input';
      this.fail(0, detail);
    }
  }

  /** Handles one non-whitespace byte outside any captured value; returns the next index. */
  private structural(chunk: Uint8Array, i: number, c: number): number {
    switch (this.state) {
      case State.Top:
        // A UTF-8 byte order mark (EF BB BF) may precede the export; it can span chunks.
        if (this.base + i < 3 && c === BOM[this.base + i]) return i + 1;
        if (c === 0x7b) {
          this.handler.realmStart(undefined);
          this.state = State.KeyOrEnd;
        } else if (c === 0x5b) {
          this.inArray = true;
          this.state = State.ArrayElementOrEnd;
        } else this.fail(i, 'expected a realm export: a JSON object, or an array of realm objects');
        return i + 1;
      case State.TopDone:
        return this.fail(i, 'unexpected data after the end of the export');
      case State.ArrayElementOrEnd:
      case State.ArrayElement:
        if (c === 0x5d && this.state === State.ArrayElementOrEnd) {
          this.state = State.TopDone;
        } else if (c === 0x7b) {
          this.handler.realmStart(this.realmIndex++);
          this.state = State.KeyOrEnd;
        } else this.fail(i, 'expected a realm object');
        return i + 1;
      case State.ArrayCommaOrEnd:
        if (c === 0x2c) this.state = State.ArrayElement;
        else if (c === 0x5d) this.state = State.TopDone;
        else this.fail(i, 'expected "," or "]" after a realm');
        return i + 1;
      case State.KeyOrEnd:
      case State.Key:
        if (c === 0x7d && this.state === State.KeyOrEnd) return this.closeRealm(i);
        if (c !== 0x22) this.fail(i, 'expected a property name in double quotes');
        return this.startCapture(chunk, i, Capture.String, After.Key);
      case State.Colon:
        if (c !== 0x3a) this.fail(i, 'expected ":" after a property name');
        this.state = State.Value;
        return i + 1;
      case State.Value:
        if (c === 0x5b && this.key === 'users') {
          this.state = State.UserOrEnd;
          return i + 1;
        }
        return this.startValue(chunk, i, c, After.Field);
      case State.CommaOrEnd:
        if (c === 0x2c) this.state = State.Key;
        else if (c === 0x7d) return this.closeRealm(i);
        else this.fail(i, 'expected "," or "}" after a realm property');
        return i + 1;
      case State.UserOrEnd:
      case State.User:
        if (c === 0x5d && this.state === State.UserOrEnd) {
          this.state = State.CommaOrEnd;
          return i + 1;
        }
        return this.startValue(chunk, i, c, After.User);
      case State.UserCommaOrEnd:
        if (c === 0x2c) this.state = State.User;
        else if (c === 0x5d) this.state = State.CommaOrEnd;
        else this.fail(i, 'expected "," or "]" after a user');
        return i + 1;
    }
  }

  private closeRealm(i: number): number {
    this.handler.realmEnd();
    this.state = this.inArray ? State.ArrayCommaOrEnd : State.TopDone;
    return i + 1;
  }

  private startValue(chunk: Uint8Array, i: number, c: number, after: After): number {
    if (c === 0x7b || c === 0x5b) return this.startCapture(chunk, i, Capture.Container, after);
    if (c === 0x22) return this.startCapture(chunk, i, Capture.String, after);
    if (c === 0x2d || (c >= 0x30 && c <= 0x39) || c === 0x74 || c === 0x66 || c === 0x6e)
      return this.startCapture(chunk, i, Capture.Primitive, after);
    return this.fail(i, `unexpected character "${String.fromCharCode(c)}"`);
  }

  private startCapture(chunk: Uint8Array, i: number, kind: Capture, after: After): number {
    this.capturing = true;
    this.capKind = kind;
    this.after = after;
    this.capStart = i;
    this.capSize = 0;
    this.capPos = this.position(i);
    this.capEscape = false;
    this.capDepth = 0;
    if (kind === Capture.Container) {
      this.capStack[this.capDepth++] = chunk[i];
      this.capInString = false;
      return i + 1;
    }
    if (kind === Capture.String) {
      this.capInString = true;
      return i + 1;
    }
    return i;
  }

  /** Consumes bytes of the value being captured; returns where the structure continues. */
  private captureRun(chunk: Uint8Array, i: number): number {
    const n = chunk.length;
    if (this.capKind === Capture.Primitive) {
      for (; i < n; i++) {
        const c = chunk[i];
        if (c === 0x2c || c === 0x7d || c === 0x5d || isWs(c)) {
          this.finish(chunk, i);
          return i;
        }
      }
      return n;
    }
    let inString = this.capInString;
    let escaped = this.capEscape;
    for (; i < n; i++) {
      const c = chunk[i];
      if (inString) {
        if (escaped) escaped = false;
        else if (c === 0x5c) escaped = true;
        else if (c === 0x22) {
          inString = false;
          if (this.capKind === Capture.String) {
            this.finish(chunk, i + 1);
            return i + 1;
          }
        }
        continue;
      }
      if (c === 0x22) inString = true;
      else if (c === 0x7b || c === 0x5b) {
        if (this.capDepth >= MAX_NESTING) this.fail(i, `nesting deeper than ${MAX_NESTING} levels`);
        this.capStack[this.capDepth++] = c;
      } else if (c === 0x7d || c === 0x5d) {
        const open = this.capStack[--this.capDepth];
        if ((c === 0x7d) !== (open === 0x7b))
          this.fail(i, `"${String.fromCharCode(c)}" does not close "${String.fromCharCode(open)}"`);
        if (this.capDepth === 0) {
          this.finish(chunk, i + 1);
          return i + 1;
        }
      } else if (c === 0x0a) {
        this.line++;
        this.lineStart = this.base + i + 1;
      }
    }
    this.capInString = inString;
    this.capEscape = escaped;
    return n;
  }

  private finish(chunk: Uint8Array, end: number): void {
    const last = chunk.subarray(this.capStart, end);
    const bytes = this.capParts.length > 0 ? concat([...this.capParts, last]) : last;
    this.capParts = [];
    this.capturing = false;
    let value: unknown;
    try {
      value = JSON.parse(UTF8.decode(bytes));
    } catch {
      const { index, detail } = locateJsonError(bytes);
      throw new JsonSyntaxError(this.file, advance(this.capPos, bytes, index), detail);
    }
    switch (this.after) {
      case After.Key:
        this.key = value as string;
        this.state = State.Colon;
        break;
      case After.Field:
        this.handler.field(this.key, value);
        this.state = State.CommaOrEnd;
        break;
      case After.User:
        this.handler.user(value, this.capPos);
        this.state = State.UserCommaOrEnd;
        break;
    }
  }
}
