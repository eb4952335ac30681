import { decryptWithMasterKey, encryptWithMasterKey } from '../../crypto/keys/encryption';
import type { SecretsInput, StoredSecrets } from './spec';

export function sealSecrets(masterKey: Buffer, s: StoredSecrets): string {
  return encryptWithMasterKey(masterKey, JSON.stringify(s));
}

export function openSecrets(masterKey: Buffer, sealed: string | null): StoredSecrets {
  return sealed ? (JSON.parse(decryptWithMasterKey(masterKey, sealed)) as StoredSecrets) : {};
}

/** An update's secrets over the stored ones: an empty field keeps what is stored. */
export function mergeSecrets(stored: StoredSecrets, update: SecretsInput): StoredSecrets {
  const out: StoredSecrets = { ...stored };
  if (update.clientSecret) out.clientSecret = update.clientSecret;
  if (update.privateKey?.pem) out.privateKey = update.privateKey;
  if (update.applePrivateKey) out.applePrivateKey = update.applePrivateKey;
  if (update.bindPassword) out.bindPassword = update.bindPassword;
  return out;
}
