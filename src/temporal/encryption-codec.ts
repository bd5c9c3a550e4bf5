import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import type { KeyRing } from './key-ring';

/** Metadata `encoding` of an encrypted payload (what the Web UI shows without a codec server). */
export const ENCRYPTED_ENCODING = 'binary/encrypted';
/** Metadata key naming the key that encrypted a payload. */
export const KEY_ID_METADATA = 'encryption-key-id';

const IV_BYTES = 12;
const TAG_BYTES = 16;
const text = new TextEncoder();
const fromText = new TextDecoder();

/** A payload that cannot be decrypted: unknown key ID or tampered/corrupt ciphertext. */
export class PayloadDecryptError extends Error {
  constructor(
    message: string,
    readonly keyId?: string,
  ) {
    super(message);
    this.name = 'PayloadDecryptError';
  }
}

function encrypt(plain: Uint8Array, key: Buffer): Uint8Array {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(plain), cipher.final()]);
  return Buffer.concat([iv, body, cipher.getAuthTag()]);
}

function decrypt(sealed: Uint8Array, key: Buffer): Uint8Array {
  const buf = Buffer.from(sealed);
  if (buf.length < IV_BYTES + TAG_BYTES) throw new Error('ciphertext too short');
  const decipher = createDecipheriv('aes-256-gcm', key, buf.subarray(0, IV_BYTES));
  decipher.setAuthTag(buf.subarray(buf.length - TAG_BYTES));
  return Buffer.concat([
    decipher.update(buf.subarray(IV_BYTES, buf.length - TAG_BYTES)),
    decipher.final(),
  ]);
}

/**
 * AES-256-GCM over the whole serialized payload (metadata included, so the original encoding
 * and any type hints are hidden too). Each payload names its key in `encryption-key-id`, so a
 * ring with the new key first and the old ones kept reads every history ever written.
 * Payloads that are not `binary/encrypted` pass through decode unchanged (histories written
 * before encryption was turned on stay readable).
 */
export class EncryptionCodec implements PayloadCodec {
  constructor(private readonly ring: KeyRing) {}

  encode(payloads: Payload[]): Promise<Payload[]> {
    const { id, key } = this.ring.current;
    return Promise.resolve(
      payloads.map((p) => ({
        metadata: {
          encoding: text.encode(ENCRYPTED_ENCODING),
          [KEY_ID_METADATA]: text.encode(id),
        },
        data: encrypt(temporal.api.common.v1.Payload.encode(p).finish(), key),
      })),
    );
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((p) => this.decodeOne(p));
  }

  private decodeOne(p: Payload): Payload {
    const encoding = p.metadata?.encoding;
    if (!encoding || fromText.decode(encoding) !== ENCRYPTED_ENCODING) return p;
    const rawId = p.metadata?.[KEY_ID_METADATA];
    const keyId = rawId ? fromText.decode(rawId) : undefined;
    const entry = keyId === undefined ? undefined : this.ring.byId.get(keyId);
    if (!entry) {
      throw new PayloadDecryptError(
        `payload encrypted with key "${keyId ?? '?'}", which is not in the key ring`,
        keyId,
      );
    }
    let plain: Uint8Array;
    try {
      plain = decrypt(p.data ?? new Uint8Array(), entry.key);
    } catch (err) {
      throw new PayloadDecryptError(
        `payload under key "${entry.id}" failed authentication (${(err as Error).message})`,
        entry.id,
      );
    }
    return temporal.api.common.v1.Payload.decode(plain);
  }
}
