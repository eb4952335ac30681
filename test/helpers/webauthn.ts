import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign } from 'node:crypto';
import { type CBORType, encodeCBOR } from '@levischuck/tiny-cbor';

/** JSON shapes of the WebAuthn browser API, as far as the tests need them. */
export type Json = Record<string, any>;

interface Credential {
  id: Buffer;
  privateKey: KeyObject;
  rpId: string;
  userHandle: string;
  counter: number;
}

export interface Overrides {
  /** clientDataJSON.origin (default: the authenticator's origin) */
  origin?: string;
  /** the RP id whose hash the authenticator data carries (default: the options' RP id) */
  rpId?: string;
  /** the challenge signed (default: the options' challenge) */
  challenge?: string;
  /** the signature counter to report (default: one more than the last) */
  counter?: number;
  /** sign with this credential (default: the first allowed one, or the first of the RP id) */
  credentialId?: string;
  /** report user verification (default: the authenticator's setting) */
  userVerified?: boolean;
}

const b64u = (b: Uint8Array | string) => Buffer.from(b).toString('base64url');
const sha256 = (b: Uint8Array | string) => createHash('sha256').update(b).digest();

/**
 * A software authenticator: ES256 key pairs from node:crypto, attestation format "none", authenticator
 * data built by hand and CBOR-encoded. It answers the JSON options of RegisterPasskey and of a
 * session's web_auth_n challenge with the JSON a browser would post (RegistrationResponseJSON,
 * AuthenticationResponseJSON); `overrides` forge what an attacker controls.
 */
export class SoftAuthenticator {
  readonly credentials: Credential[] = [];
  constructor(
    readonly origin: string,
    readonly opts: { userVerified?: boolean; backupEligible?: boolean } = {},
  ) {}

  private flags(userVerified: boolean, attested: boolean): number {
    let f = 0x01; // user present
    if (userVerified) f |= 0x04;
    if (this.opts.backupEligible) f |= 0x08 | 0x10;
    if (attested) f |= 0x40;
    return f;
  }

  private clientData(type: string, challenge: string, origin: string): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
  }

  /** navigator.credentials.create(): a new credential for the options' RP and user. */
  create(options: Json, o: Overrides = {}): Json {
    const rpId: string = options.rp.id;
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = publicKey.export({ format: 'jwk' });
    const cose = encodeCBOR(
      new Map<number, CBORType>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, new Uint8Array(Buffer.from(jwk.x!, 'base64url'))],
        [-3, new Uint8Array(Buffer.from(jwk.y!, 'base64url'))],
      ]),
    );
    const id = randomBytes(32);
    const counter = o.counter ?? 0;
    const authData = Buffer.concat([
      sha256(o.rpId ?? rpId),
      Buffer.from([this.flags(o.userVerified ?? this.opts.userVerified ?? true, true)]),
      u32(counter),
      Buffer.alloc(16), // AAGUID
      Buffer.from([id.length >> 8, id.length & 0xff]),
      id,
      Buffer.from(cose),
    ]);
    const attestationObject = encodeCBOR(
      new Map<string, CBORType>([
        ['fmt', 'none'],
        ['attStmt', new Map()],
        ['authData', new Uint8Array(authData)],
      ]),
    );
    this.credentials.push({ id, privateKey, rpId, userHandle: options.user.id, counter });
    const clientDataJSON = this.clientData(
      'webauthn.create',
      o.challenge ?? options.challenge,
      o.origin ?? this.origin,
    );
    return {
      id: b64u(id),
      rawId: b64u(id),
      type: 'public-key',
      authenticatorAttachment: 'platform',
      clientExtensionResults: {},
      response: {
        clientDataJSON: b64u(clientDataJSON),
        attestationObject: b64u(attestationObject),
        transports: ['internal'],
      },
    };
  }

  /** navigator.credentials.get(): an assertion for the options' challenge. */
  get(options: Json, o: Overrides = {}): Json {
    const rpId: string = options.rpId;
    const allowed: string[] = (options.allowCredentials ?? []).map((c: Json) => c.id);
    const cred = this.credentials.find((c) =>
      o.credentialId ? b64u(c.id) === o.credentialId : allowed.length ? allowed.includes(b64u(c.id)) : c.rpId === rpId,
    );
    if (!cred) throw new Error('the software authenticator has no fitting credential');
    cred.counter = o.counter ?? cred.counter + 1;
    const authData = Buffer.concat([
      sha256(o.rpId ?? rpId),
      Buffer.from([this.flags(o.userVerified ?? this.opts.userVerified ?? true, false)]),
      u32(cred.counter),
    ]);
    const clientDataJSON = this.clientData('webauthn.get', o.challenge ?? options.challenge, o.origin ?? this.origin);
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), cred.privateKey);
    return {
      id: b64u(cred.id),
      rawId: b64u(cred.id),
      type: 'public-key',
      authenticatorAttachment: 'platform',
      clientExtensionResults: {},
      response: {
        clientDataJSON: b64u(clientDataJSON),
        authenticatorData: b64u(authData),
        signature: b64u(signature),
        userHandle: cred.userHandle,
      },
    };
  }
}

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
}
