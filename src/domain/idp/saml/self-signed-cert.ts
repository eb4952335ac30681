import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';

/**
 * A self-signed X.509 certificate built by hand in DER with node:crypto. Why by hand: the SP only
 * needs a certificate as a container for its public key in metadata (SAML peers pin the key, they
 * do not validate a chain), no openssl CLI is available at runtime, and the one installed X.509
 * library (@peculiar/x509) needs a global reflect-metadata polyfill. The structure follows
 * RFC 5280 §4.1 with no extensions, which is a valid v3 certificate.
 */
export function selfSignedRsaCertificate(
  commonName: string,
  validYears: number,
): { certificatePem: string; privateKeyPem: string } {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const notBefore = new Date(Date.now() - 60_000); // a minute back, for peers whose clock runs slow
  const notAfter = new Date(notBefore);
  notAfter.setUTCFullYear(notAfter.getUTCFullYear() + validYears);
  const name = seq(set(seq(oid('550403' /* 2.5.4.3 commonName */), tlv(0x0c, Buffer.from(commonName.slice(0, 64))))));
  const tbs = seq(
    tlv(0xa0, integer(Buffer.from([2]))), // [0] EXPLICIT version: v3
    integer(serialNumber()),
    SHA256_WITH_RSA,
    name, // issuer = subject: self-signed
    seq(time(notBefore), time(notAfter)),
    name,
    publicKey.export({ type: 'spki', format: 'der' }), // SubjectPublicKeyInfo, already DER
  );
  const signature = sign('sha256', tbs, privateKey);
  const der = seq(tbs, SHA256_WITH_RSA, tlv(0x03, Buffer.concat([Buffer.from([0]), signature])));
  return {
    certificatePem: pem('CERTIFICATE', der),
    privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
}

// AlgorithmIdentifier { sha256WithRSAEncryption (1.2.840.113549.1.1.11), NULL }
const SHA256_WITH_RSA = Buffer.from('300d06092a864886f70d01010b0500', 'hex');

function tlv(tag: number, content: Buffer): Buffer {
  const n = content.length;
  let length: Buffer;
  if (n < 0x80) length = Buffer.from([n]);
  else {
    const bytes: number[] = [];
    for (let rest = n; rest > 0; rest >>= 8) bytes.unshift(rest & 0xff);
    length = Buffer.from([0x80 | bytes.length, ...bytes]);
  }
  return Buffer.concat([Buffer.from([tag]), length, content]);
}

const seq = (...parts: Buffer[]) => tlv(0x30, Buffer.concat(parts));
const set = (...parts: Buffer[]) => tlv(0x31, Buffer.concat(parts));
const oid = (hex: string) => tlv(0x06, Buffer.from(hex, 'hex'));
const integer = (bytes: Buffer) => tlv(0x02, bytes);

/** 16 random bytes, positive and without a leading zero byte (RFC 5280: at most 20 octets, positive). */
function serialNumber(): Buffer {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0] & 0x7f) | 0x01;
  return bytes;
}

/** UTCTime up to 2049, GeneralizedTime from 2050 on (RFC 5280 §4.1.2.5). */
function time(d: Date): Buffer {
  const iso = d.toISOString(); // 2036-11-26T22:54:13.000Z
  const digits = iso.slice(0, 19).replace(/[-:T]/g, ''); // 20361126225413
  return d.getUTCFullYear() < 2050
    ? tlv(0x17, Buffer.from(`${digits.slice(2)}Z`))
    : tlv(0x18, Buffer.from(`${digits}Z`));
}

function pem(label: string, der: Buffer): string {
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}
