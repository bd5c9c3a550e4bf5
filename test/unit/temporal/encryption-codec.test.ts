import { strict as assert } from 'node:assert';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultPayloadConverter } from '@temporalio/common';
import { ConfigError, loadConfig, redactConfig } from '../../../src/config';
import {
  ENCRYPTED_ENCODING,
  EncryptionCodec,
  KEY_ID_METADATA,
  PayloadDecryptError,
} from '../../../src/temporal/encryption-codec';
import { dataConverterFor } from '../../../src/temporal/data-converter';
import { ensureDevKeyFile, generateKeyLine, parseKeyRing } from '../../../src/temporal/key-ring';

const order = { orderId: 'o-1', customer: { email: 'unit-codec@example.com' }, amount: 1234 };
const text = (b?: Uint8Array | null) => Buffer.from(b ?? []).toString('utf8');

describe('encryption codec', () => {
  const oldLine = generateKeyLine('old');
  const newLine = generateKeyLine('new');

  it('encrypts with the current key, names it, and hides the payload', async () => {
    const codec = new EncryptionCodec(parseKeyRing(oldLine, 'T'));
    const [encoded] = await codec.encode([defaultPayloadConverter.toPayload(order)]);
    assert.equal(text(encoded!.metadata!.encoding), ENCRYPTED_ENCODING);
    assert.equal(text(encoded!.metadata![KEY_ID_METADATA]), 'old');
    assert.ok(!text(encoded!.data).includes('unit-codec@example.com'));
    assert.ok(!text(encoded!.data).includes('json/plain'));
    const [decoded] = await codec.decode([encoded!]);
    assert.deepEqual(defaultPayloadConverter.fromPayload(decoded!), order);
  });

  it('after rotation (new key first, old kept) reads old payloads and writes with the new key', async () => {
    const before = new EncryptionCodec(parseKeyRing(oldLine, 'T'));
    const [old] = await before.encode([defaultPayloadConverter.toPayload(order)]);
    const after = new EncryptionCodec(parseKeyRing(`${newLine},${oldLine}`, 'T'));
    const [decoded] = await after.decode([old!]);
    assert.deepEqual(defaultPayloadConverter.fromPayload(decoded!), order);
    const [fresh] = await after.encode([defaultPayloadConverter.toPayload(order)]);
    assert.equal(text(fresh!.metadata![KEY_ID_METADATA]), 'new');
  });

  it('refuses an unknown key ID and tampered ciphertext, and passes plaintext through', async () => {
    const [sealed] = await new EncryptionCodec(parseKeyRing(oldLine, 'T')).encode([
      defaultPayloadConverter.toPayload(order),
    ]);
    const other = new EncryptionCodec(parseKeyRing(newLine, 'T'));
    await assert.rejects(other.decode([sealed!]), PayloadDecryptError);
    const tampered = { ...sealed!, data: Buffer.from(sealed!.data!) };
    tampered.data[20] = tampered.data[20]! ^ 1;
    const same = new EncryptionCodec(parseKeyRing(oldLine, 'T'));
    await assert.rejects(same.decode([tampered]), /failed authentication/);
    const plain = defaultPayloadConverter.toPayload(order);
    assert.deepEqual(await same.decode([plain]), [plain]);
  });

  it('rejects malformed key lists naming the setting, never quoting the key', () => {
    assert.throws(() => parseKeyRing('k1:c2hvcnQ=', 'X'), /X: key "k1" is 5 bytes/);
    assert.throws(() => parseKeyRing(`${oldLine},${oldLine}`, 'X'), /appears twice/);
    assert.throws(() => parseKeyRing('nokey', 'X'), /id:base64key/);
  });
});

describe('encryption settings', () => {
  it('a process without a key refuses to start unless ONCEFLOW_ENCRYPTION=off', () => {
    const config = loadConfig({});
    assert.throws(
      () => dataConverterFor(config),
      (err: unknown) =>
        err instanceof ConfigError && err.problems[0]!.setting === 'ONCEFLOW_ENCRYPTION_KEYS',
    );
    assert.deepEqual(dataConverterFor(loadConfig({ ONCEFLOW_ENCRYPTION: 'off' })), {});
  });

  it('reads keys from the env or a key file; bad keys are a named config error', () => {
    const line = generateKeyLine('a');
    const fromEnv = loadConfig({ ONCEFLOW_ENCRYPTION_KEYS: line });
    assert.equal(fromEnv.encryption.ring?.current.id, 'a');
    assert.equal(dataConverterFor(fromEnv).payloadCodecs?.length, 1);
    const file = ensureDevKeyFile(join(mkdtempSync(join(tmpdir(), 'keys-')), 'k'));
    assert.equal(statSync(file).mode & 0o777, 0o600);
    const fromFile = loadConfig({ ONCEFLOW_ENCRYPTION_KEY_FILE: file });
    assert.equal(fromFile.encryption.ring?.current.id, 'dev1');
    assert.equal(ensureDevKeyFile(file), file);
    assert.equal(
      readFileSync(file, 'utf8')
        .split('\n')
        .filter((l) => l.startsWith('dev1:')).length,
      1,
    );
    assert.throws(
      () => loadConfig({ ONCEFLOW_ENCRYPTION_KEYS: 'a:AAAA' }),
      (err: unknown) =>
        err instanceof ConfigError && err.problems[0]!.setting === 'ONCEFLOW_ENCRYPTION_KEYS',
    );
    const redacted = JSON.stringify(redactConfig(fromEnv));
    assert.ok(!redacted.includes(line.split(':')[1]!));
    assert.ok(redacted.includes('"keyIds":["a"]'));
  });
});
