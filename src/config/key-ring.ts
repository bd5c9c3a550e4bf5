import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { dirname } from 'node:path';

/** One AES-256 key and the ID that payloads encrypted with it carry. */
export interface EncryptionKey {
  id: string;
  key: Buffer;
}

/**
 * Keys in the order given: the first encrypts, every key decrypts. Rotation = put the new key
 * first and keep the old ones, so histories written under an old key stay readable.
 */
export interface KeyRing {
  current: EncryptionKey;
  byId: ReadonlyMap<string, EncryptionKey>;
}

/** Raised for a key list that cannot be used; `setting` names where it came from. */
export class KeyRingError extends Error {
  constructor(
    readonly setting: string,
    message: string,
  ) {
    super(`${setting}: ${message}`);
    this.name = 'KeyRingError';
  }
}

const KEY_ID = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * Parses `id1:base64key,id2:base64key` (commas or new lines; `#` starts a comment line in a
 * key file). Each key must be 32 bytes (AES-256) and each ID unique.
 */
export function parseKeyRing(text: string, setting: string): KeyRing {
  const entries = text
    .split(/[,\n]/)
    .map((s) => s.trim())
    .filter((s) => s && !s.startsWith('#'));
  if (entries.length === 0) throw new KeyRingError(setting, 'lists no key');
  const keys: EncryptionKey[] = [];
  const byId = new Map<string, EncryptionKey>();
  for (const entry of entries) {
    const colon = entry.indexOf(':');
    if (colon < 0) throw new KeyRingError(setting, 'each key must be written id:base64key');
    const id = entry.slice(0, colon);
    if (!KEY_ID.test(id)) {
      throw new KeyRingError(setting, 'key IDs use 1..64 letters, digits, . _ -');
    }
    const key = Buffer.from(entry.slice(colon + 1), 'base64');
    // Never quote the key material, only its ID and size.
    if (key.length !== 32) {
      throw new KeyRingError(setting, `key "${id}" is ${key.length} bytes; AES-256 needs 32`);
    }
    if (byId.has(id)) throw new KeyRingError(setting, `key ID "${id}" appears twice`);
    const k = { id, key };
    keys.push(k);
    byId.set(id, k);
  }
  return { current: keys[0]!, byId };
}

/** Reads a key file (same format as ONCEFLOW_ENCRYPTION_KEYS). */
export function readKeyFile(path: string, setting: string): KeyRing {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new KeyRingError(setting, `cannot read ${path} (${(err as NodeJS.ErrnoException).code})`);
  }
  return parseKeyRing(text, setting);
}

/** A fresh key-ring line: `<id>:<base64 of 32 random bytes>`. */
export function generateKeyLine(id = `k${new Date().toISOString().slice(0, 10)}`): string {
  return `${id}:${randomBytes(32).toString('base64')}`;
}

/** The local stack's dev secret token in `path` (created once, mode 0600); returns it. */
export function ensureDevToken(path: string): string {
  if (!existsSync(path)) {
    mkdirSync(dirname(path), { recursive: true });
    try {
      writeFileSync(path, `${randomBytes(24).toString('base64url')}\n`, {
        mode: 0o600,
        flag: 'wx',
      });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  return readFileSync(path, 'utf8').trim();
}

/**
 * The local stack's dev key: created once (mode 0600) and kept, so histories written by one
 * run stay readable by the next.
 */
export function ensureDevKeyFile(path: string): string {
  if (!existsSync(path)) {
    mkdirSync(dirname(path), { recursive: true });
    try {
      writeFileSync(
        path,
        `# onceflow dev encryption keys (local stack only); first line encrypts\n${generateKeyLine('dev1')}\n`,
        { mode: 0o600, flag: 'wx' },
      );
    } catch (err) {
      // Two processes starting at once: the other one wrote it; keep theirs.
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  chmodSync(path, 0o600);
  return path;
}
