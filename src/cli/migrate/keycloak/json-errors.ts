/** Where a syntax error is: byte offset from the start of the file, and 1-based line and column. */
export interface Position {
  offset: number;
  line: number;
  column: number;
}

export class JsonSyntaxError extends Error {
  constructor(
    readonly file: string,
    readonly position: Position,
    readonly detail: string,
  ) {
    super(`${file}:${position.line}:${position.column}: invalid JSON: ${detail} (byte offset ${position.offset})`);
  }
}

/**
 * Finds the first syntax error in a JSON text that JSON.parse refused. JSON.parse's messages do not
 * always carry a position, and the user needs one to fix a multi-gigabyte export by hand.
 */
export function locateJsonError(bytes: Uint8Array): { index: number; detail: string } {
  let i = 0;
  const fail = (detail: string): never => {
    throw { index: i, detail };
  };
  const ws = () => {
    while (i < bytes.length && (bytes[i] === 0x20 || bytes[i] === 0x0a || bytes[i] === 0x0d || bytes[i] === 0x09)) i++;
  };
  const expectByte = (c: number, what: string) => {
    if (bytes[i] !== c) fail(i >= bytes.length ? `unexpected end of input, expected ${what}` : `expected ${what}`);
    i++;
  };
  const literal = (word: string) => {
    for (let k = 0; k < word.length; k++) {
      if (bytes[i] !== word.charCodeAt(k)) fail(`invalid literal, expected "${word}"`);
      i++;
    }
  };
  const string = () => {
    expectByte(0x22, 'a string');
    for (;;) {
      if (i >= bytes.length) fail('unterminated string');
      const c = bytes[i];
      if (c === 0x22) {
        i++;
        return;
      }
      if (c < 0x20) fail('control character inside a string');
      if (c === 0x5c) {
        i++;
        const e = bytes[i];
        if (e === 0x75) {
          for (let k = 1; k <= 4; k++)
            if (!/[0-9a-fA-F]/.test(String.fromCharCode(bytes[i + k] ?? 0))) fail('invalid \\u escape');
          i += 4;
        } else if (!'"\\/bfnrt'.includes(String.fromCharCode(e ?? 0))) fail('invalid escape');
      }
      i++;
    }
  };
  const number = () => {
    const start = i;
    if (bytes[i] === 0x2d) i++;
    const digits = () => {
      const s = i;
      while (bytes[i] >= 0x30 && bytes[i] <= 0x39) i++;
      if (i === s) fail('invalid number');
    };
    if (bytes[i] === 0x30) i++;
    else digits();
    if (bytes[i] === 0x2e) {
      i++;
      digits();
    }
    if (bytes[i] === 0x65 || bytes[i] === 0x45) {
      i++;
      if (bytes[i] === 0x2b || bytes[i] === 0x2d) i++;
      digits();
    }
    if (i === start) fail('unexpected character');
  };
  const value = (): void => {
    ws();
    const c = bytes[i];
    if (c === undefined) fail('unexpected end of input');
    if (c === 0x7b) {
      i++;
      ws();
      if (bytes[i] === 0x7d) {
        i++;
        return;
      }
      for (;;) {
        ws();
        string();
        ws();
        expectByte(0x3a, '":"');
        value();
        ws();
        if (bytes[i] === 0x2c) {
          i++;
          continue;
        }
        expectByte(0x7d, '"," or "}"');
        return;
      }
    }
    if (c === 0x5b) {
      i++;
      ws();
      if (bytes[i] === 0x5d) {
        i++;
        return;
      }
      for (;;) {
        value();
        ws();
        if (bytes[i] === 0x2c) {
          i++;
          continue;
        }
        expectByte(0x5d, '"," or "]"');
        return;
      }
    }
    if (c === 0x22) string();
    else if (c === 0x74) literal('true');
    else if (c === 0x66) literal('false');
    else if (c === 0x6e) literal('null');
    else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) number();
    else fail(`unexpected character "${String.fromCharCode(c)}"`);
  };
  try {
    value();
    ws();
    if (i < bytes.length) fail('unexpected data after the value');
  } catch (err) {
    if (err && typeof err === 'object' && 'index' in err) return err as { index: number; detail: string };
    throw err;
  }
  return { index: bytes.length, detail: 'invalid JSON' };
}

/** Advances a position over `bytes[0..end)`, counting lines (columns are counted in bytes). */
export function advance(from: Position, bytes: Uint8Array, end: number): Position {
  let { line, column } = from;
  for (let k = 0; k < end; k++) {
    if (bytes[k] === 0x0a) {
      line++;
      column = 1;
    } else column++;
  }
  return { offset: from.offset + end, line, column };
}
