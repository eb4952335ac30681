import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadMasterKey } from '../../src/crypto/keys/master-key';

describe('master key', () => {
  it('is generated once into <data dir>/master.key with mode 0600 and reused', () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pc-mk-'));
    const first = loadMasterKey({ masterKey: undefined, dataDir, inMemory: false });
    const file = path.join(dataDir, 'master.key');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(first).toHaveLength(32);
    const again = loadMasterKey({ masterKey: undefined, dataDir, inMemory: false });
    expect(again.equals(first)).toBe(true);
    expect(fs.readdirSync(dataDir)).toEqual(['master.key']);
  });

  it('PORTCULLIS_MASTER_KEY wins (base64 or hex) and must be 32 bytes', () => {
    const hex = 'ab'.repeat(32);
    expect(loadMasterKey({ masterKey: hex, dataDir: '/nonexistent', inMemory: false }).toString('hex')).toBe(hex);
    expect(() => loadMasterKey({ masterKey: 'c2hvcnQ=', dataDir: '/nonexistent', inMemory: false })).toThrow(
      /32 bytes/,
    );
  });
});
