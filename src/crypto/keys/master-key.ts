import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../../config';

// With an in-memory data folder the key is the process's own (see below): servers of one process that
// share a database can read each other's signing keys, as replicas with a common master key do.
let processKey: Buffer | undefined;

/**
 * The 32-byte key that encrypts signing keys at rest. From PORTCULLIS_MASTER_KEY (base64 or hex);
 * otherwise read from, or generated once into, `master.key` (0600) in the database's folder
 * (`databaseFolder`, see database-folder.ts; the data folder when not given). With an in-memory data
 * folder the process keeps a key of its own: replicas sharing a database must then set the variable.
 */
export function loadMasterKey(config: KeyConfig): Buffer {
  let key = loaded.get(config);
  if (!key) {
    key = readMasterKey(config);
    loaded.set(config, key);
  }
  return key;
}

// Read (or made) once per configuration: the file is written once and never changes, so a server's
// configuration always names the same key.
const loaded = new WeakMap<object, Buffer>();

type KeyConfig = Pick<Config, 'masterKey' | 'dataDir' | 'inMemory'> & Partial<Pick<Config, 'databaseFolder'>>;

function readMasterKey(config: KeyConfig): Buffer {
  if (config.masterKey) return decodeKey(config.masterKey);
  if (config.inMemory) {
    processKey ??= randomBytes(32);
    return processKey;
  }
  const file = path.join(config.databaseFolder ?? config.dataDir, MASTER_KEY_FILE);
  const existing = readKeyFile(file);
  if (existing) return existing;
  const key = randomBytes(32);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  // Written to a private temporary file and hard-linked into place: another worker starting at the
  // same moment sees either no file or the whole key, and if it linked first, its key wins.
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  fs.writeFileSync(tmp, `${key.toString('base64')}\n`, { mode: 0o600 });
  try {
    fs.linkSync(tmp, file);
  } catch {
    return decodeKey(fs.readFileSync(file, 'utf8').trim());
  } finally {
    fs.rmSync(tmp, { force: true });
  }
  return key;
}

export const MASTER_KEY_FILE = 'master.key';

/** The key in a master key file, or undefined when there is no such file. */
export function readKeyFile(file: string): Buffer | undefined {
  return fs.existsSync(file) ? decodeKey(fs.readFileSync(file, 'utf8').trim()) : undefined;
}

function decodeKey(raw: string): Buffer {
  const key = /^[0-9a-fA-F]{64}$/.test(raw) ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'base64');
  if (key.length !== 32) throw new Error('PORTCULLIS_MASTER_KEY must be 32 bytes, given as base64 or hex');
  return key;
}
