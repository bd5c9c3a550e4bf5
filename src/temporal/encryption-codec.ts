import {
  createCipheriv,
  createDecipheriv,
  createSecretKey,
  randomFillSync,
  type KeyObject,
} from 'node:crypto';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import type { EncryptionKey, KeyRing } from '../config/key-ring';

/** Metadata `encoding` of an encrypted payload (what the Web UI shows without a codec server). */
export const ENCRYPTED_ENCODING = 'binary/encrypted';
/** Metadata key naming the key that encrypted a payload. */
export const KEY_ID_METADATA = 'encryption-key-id';
/**
 * Metadata key of the sealing format. Absent: format 1 (no associated data), as written
 * before the key ID and namespace were bound; `2`: AES-GCM with ASSOCIATED_DATA below.
 */
export const FORMAT_METADATA = 'encryption-format';
/** The format every payload is written in. */
export const CURRENT_FORMAT = '2';

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

/** Strict mode met a payload that is not encrypted (nothing vouches for who wrote it). */
export class PayloadNotEncryptedError extends Error {
  override readonly name = 'PayloadNotEncryptedError';
}

/**
 * Format 2's associated data: the key ID and the namespace, length-delimited by JSON. A
 * payload moved to another namespace, or relabelled with another key ID, fails
 * authentication instead of decrypting there.
 */
export function associatedDataOf(keyId: string, namespace: string): Buffer {
  return Buffer.from(JSON.stringify(['onceflow-payload', CURRENT_FORMAT, keyId, namespace]));
}

/** IVs per fill of the pool below. */
const IVS_PER_FILL = 341;
let ivPool = Buffer.alloc(0);
let ivOffset = 0;

/**
 * A fresh random IV, drawn from a pool the CSPRNG fills 4 KiB at a time: `randomBytes(12)` per
 * payload was one OpenSSL call each, 2-6 µs, and a workflow start seals several payloads
 * (profiled in the bridge: 51 µs per start). Each IV is still 96 fresh random bits, handed
 * out once (the pool's bytes are copied and never reused), as AES-GCM with random IVs needs.
 */
function nextIv(): Buffer {
  if (ivOffset + IV_BYTES > ivPool.length) {
    ivPool = randomFillSync(Buffer.allocUnsafe(IV_BYTES * IVS_PER_FILL));
    ivOffset = 0;
  }
  const iv = Buffer.from(ivPool.subarray(ivOffset, ivOffset + IV_BYTES));
  ivOffset += IV_BYTES;
  return iv;
}

function encrypt(plain: Uint8Array, key: KeyObject, aad: Buffer): Uint8Array {
  const iv = nextIv();
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(aad);
  const body = Buffer.concat([cipher.update(plain), cipher.final()]);
  return Buffer.concat([iv, body, cipher.getAuthTag()]);
}

function decrypt(sealed: Uint8Array, key: KeyObject, aad?: Buffer): Uint8Array {
  const buf = Buffer.from(sealed);
  if (buf.length < IV_BYTES + TAG_BYTES) throw new Error('ciphertext too short');
  const decipher = createDecipheriv('aes-256-gcm', key, buf.subarray(0, IV_BYTES));
  if (aad) decipher.setAAD(aad);
  decipher.setAuthTag(buf.subarray(buf.length - TAG_BYTES));
  return Buffer.concat([
    decipher.update(buf.subarray(IV_BYTES, buf.length - TAG_BYTES)),
    decipher.final(),
  ]);
}

/** Options of EncryptionCodec. */
export interface EncryptionCodecOptions {
  /**
   * The Temporal namespace the payloads live in (TEMPORAL_NAMESPACE; the codec server: the
   * namespace the Web UI asks for). Bound into every payload as associated data.
   */
  namespace: string;
  /**
   * Refuse payloads that are not encrypted (ONCEFLOW_ENCRYPTION_STRICT). Default: false,
   * they pass through decode unchanged (histories from before encryption stay readable).
   */
  strict?: boolean;
}

/**
 * AES-256-GCM over the whole serialized payload (metadata included, so the original encoding
 * and any type hints are hidden too), with the key ID and namespace as associated data. Each
 * payload names its key in `encryption-key-id`, so a ring with the new key first and the old
 * ones kept reads every history ever written; format-1 payloads (no associated data, written
 * before issue 23) still decrypt.
 */
export class EncryptionCodec implements PayloadCodec {
  private readonly namespace: string;
  private readonly strict: boolean;
  /**
   * Each key as a KeyObject with its associated data, made once: a raw key Buffer handed to
   * createCipheriv is turned into a KeyObject on every call, which was 3/4 of a payload's
   * sealing cost (about 15 µs against 4; several payloads per activity).
   */
  private readonly sealing = new Map<string, { secret: KeyObject; aad: Buffer }>();

  constructor(
    private readonly ring: KeyRing,
    options: EncryptionCodecOptions,
  ) {
    this.namespace = options.namespace;
    this.strict = options.strict ?? false;
  }

  private sealingOf(entry: EncryptionKey): { secret: KeyObject; aad: Buffer } {
    let s = this.sealing.get(entry.id);
    if (!s) {
      s = { secret: createSecretKey(entry.key), aad: associatedDataOf(entry.id, this.namespace) };
      this.sealing.set(entry.id, s);
    }
    return s;
  }

  encode(payloads: Payload[]): Promise<Payload[]> {
    const { id } = this.ring.current;
    const { secret, aad } = this.sealingOf(this.ring.current);
    return Promise.resolve(
      payloads.map((p) => ({
        metadata: {
          encoding: text.encode(ENCRYPTED_ENCODING),
          [KEY_ID_METADATA]: text.encode(id),
          [FORMAT_METADATA]: text.encode(CURRENT_FORMAT),
        },
        data: encrypt(temporal.api.common.v1.Payload.encode(p).finish(), secret, aad),
      })),
    );
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((p) => this.decodeOne(p));
  }

  private decodeOne(p: Payload): Payload {
    const encoding = p.metadata?.encoding;
    if (!encoding || fromText.decode(encoding) !== ENCRYPTED_ENCODING) {
      if (!this.strict) return p;
      throw new PayloadNotEncryptedError(
        `payload (encoding ${encoding ? JSON.stringify(fromText.decode(encoding)) : 'none'}) ` +
          'is not encrypted: refused (ONCEFLOW_ENCRYPTION_STRICT=true)',
      );
    }
    const rawId = p.metadata?.[KEY_ID_METADATA];
    const keyId = rawId ? fromText.decode(rawId) : undefined;
    const entry = keyId === undefined ? undefined : this.ring.byId.get(keyId);
    if (!entry) {
      throw new PayloadDecryptError(
        `payload encrypted with key "${keyId ?? '?'}", which is not in the key ring`,
        keyId,
      );
    }
    const rawFormat = p.metadata?.[FORMAT_METADATA];
    const format = rawFormat ? fromText.decode(rawFormat) : '1';
    if (format !== '1' && format !== CURRENT_FORMAT) {
      throw new PayloadDecryptError(`payload in unknown encryption format "${format}"`, entry.id);
    }
    let plain: Uint8Array;
    const { secret, aad } = this.sealingOf(entry);
    try {
      plain = decrypt(p.data ?? new Uint8Array(), secret, format === '1' ? undefined : aad);
    } catch (err) {
      throw new PayloadDecryptError(
        `payload under key "${entry.id}" failed authentication in namespace "${this.namespace}" ` +
          `(${(err as Error).message})`,
        entry.id,
      );
    }
    return temporal.api.common.v1.Payload.decode(plain);
  }
}
