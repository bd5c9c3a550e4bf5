import { strict as assert } from 'node:assert';
import { createCipheriv, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultPayloadConverter } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { ConfigError, loadConfig, redactConfig } from '../../../src/config';
import {
  ENCRYPTED_ENCODING,
  EncryptionCodec,
  FORMAT_METADATA,
  KEY_ID_METADATA,
  PayloadDecryptError,
  PayloadNotEncryptedError,
} from '../../../src/temporal/encryption-codec';
import { dataConverterFor } from '../../../src/temporal/data-converter';
import { ensureDevKeyFile, generateKeyLine, parseKeyRing } from '../../../src/config/key-ring';

const order = { orderId: 'o-1', customer: { email: 'unit-codec@example.com' }, amount: 1234 };
const text = (b?: Uint8Array | null) => Buffer.from(b ?? []).toString('utf8');
const NS = { namespace: 'orders-prod' };

describe('encryption codec', () => {
  const oldLine = generateKeyLine('old');
  const newLine = generateKeyLine('new');

  it('encrypts with the current key, names it, and hides the payload', async () => {
    const codec = new EncryptionCodec(parseKeyRing(oldLine, 'T'), NS);
    const [encoded] = await codec.encode([defaultPayloadConverter.toPayload(order)]);
    assert.equal(text(encoded!.metadata!.encoding), ENCRYPTED_ENCODING);
    assert.equal(text(encoded!.metadata![KEY_ID_METADATA]), 'old');
    assert.ok(!text(encoded!.data).includes('unit-codec@example.com'));
    assert.ok(!text(encoded!.data).includes('json/plain'));
    const [decoded] = await codec.decode([encoded!]);
    assert.deepEqual(defaultPayloadConverter.fromPayload(decoded!), order);
  });

  it('seals every payload under its own IV, across refills of the IV pool', async () => {
    const codec = new EncryptionCodec(parseKeyRing(oldLine, 'T'), NS);
    // 1000 payloads: about three fills of the 341-IV pool, so a refill that reused or
    // skipped its bytes would show as a repeated IV.
    const plain = Array.from({ length: 1000 }, () => defaultPayloadConverter.toPayload(order));
    const sealed = await codec.encode(plain);
    const ivs = new Set(sealed.map((p) => Buffer.from(p.data!).subarray(0, 12).toString('hex')));
    assert.equal(ivs.size, 1000);
    const opened = await codec.decode(sealed);
    assert.deepEqual(defaultPayloadConverter.fromPayload(opened[999]!), order);
  });

  it('after rotation (new key first, old kept) reads old payloads and writes with the new key', async () => {
    const before = new EncryptionCodec(parseKeyRing(oldLine, 'T'), NS);
    const [old] = await before.encode([defaultPayloadConverter.toPayload(order)]);
    const after = new EncryptionCodec(parseKeyRing(`${newLine},${oldLine}`, 'T'), NS);
    const [decoded] = await after.decode([old!]);
    assert.deepEqual(defaultPayloadConverter.fromPayload(decoded!), order);
    const [fresh] = await after.encode([defaultPayloadConverter.toPayload(order)]);
    assert.equal(text(fresh!.metadata![KEY_ID_METADATA]), 'new');
  });

  it('refuses an unknown key ID and tampered ciphertext, and passes plaintext through', async () => {
    const [sealed] = await new EncryptionCodec(parseKeyRing(oldLine, 'T'), NS).encode([
      defaultPayloadConverter.toPayload(order),
    ]);
    const other = new EncryptionCodec(parseKeyRing(newLine, 'T'), NS);
    await assert.rejects(other.decode([sealed!]), PayloadDecryptError);
    const tampered = { ...sealed!, data: Buffer.from(sealed!.data!) };
    tampered.data[20] = tampered.data[20]! ^ 1;
    const same = new EncryptionCodec(parseKeyRing(oldLine, 'T'), NS);
    await assert.rejects(same.decode([tampered]), /failed authentication/);
    const plain = defaultPayloadConverter.toPayload(order);
    assert.deepEqual(await same.decode([plain]), [plain]);
  });

  it('binds the key ID and the namespace: a payload read in another namespace, or relabelled, fails', async () => {
    const ring = parseKeyRing(`${newLine},${oldLine}`, 'T');
    const [sealed] = await new EncryptionCodec(ring, NS).encode([
      defaultPayloadConverter.toPayload(order),
    ]);
    assert.equal(text(sealed!.metadata![FORMAT_METADATA]), '2');
    const elsewhere = new EncryptionCodec(ring, { namespace: 'orders-staging' });
    await assert.rejects(
      elsewhere.decode([sealed!]),
      (err: unknown) =>
        err instanceof PayloadDecryptError && /namespace "orders-staging"/.test(err.message),
    );
    // Relabelled with another key ID whose key is the very same bytes: only the binding of
    // the ID can tell, and it does.
    const material = oldLine.split(':')[1]!;
    const twins = parseKeyRing(`a:${material},b:${material}`, 'T');
    const [underA] = await new EncryptionCodec(twins, NS).encode([
      defaultPayloadConverter.toPayload(order),
    ]);
    const relabelled = {
      ...underA!,
      metadata: { ...underA!.metadata, [KEY_ID_METADATA]: Buffer.from('b') },
    };
    await assert.rejects(
      new EncryptionCodec(twins, NS).decode([relabelled]),
      /failed authentication/,
    );
    // Dropping the format field makes it a format-1 payload: opened without associated data,
    // the tag no longer matches, so the binding cannot be stripped either.
    const withoutFormat = { ...sealed!.metadata! };
    delete withoutFormat[FORMAT_METADATA];
    await assert.rejects(
      new EncryptionCodec(ring, NS).decode([{ ...sealed!, metadata: withoutFormat }]),
      /failed authentication/,
    );
    const [back] = await new EncryptionCodec(ring, NS).decode([sealed!]);
    assert.deepEqual(defaultPayloadConverter.fromPayload(back!), order);
  });

  it('still reads format-1 payloads (sealed without associated data, before issue 23)', async () => {
    // Exactly what the codec wrote before: AES-256-GCM over the serialized payload, no AAD,
    // no format field.
    const { key } = parseKeyRing(oldLine, 'T').current;
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    const plain = temporal.api.common.v1.Payload.encode(
      defaultPayloadConverter.toPayload(order),
    ).finish();
    const body = Buffer.concat([cipher.update(plain), cipher.final()]);
    const legacy = {
      metadata: {
        encoding: Buffer.from(ENCRYPTED_ENCODING),
        [KEY_ID_METADATA]: Buffer.from('old'),
      },
      data: Buffer.concat([iv, body, cipher.getAuthTag()]),
    };
    for (const namespace of ['orders-prod', 'anything']) {
      const codec = new EncryptionCodec(parseKeyRing(`${newLine},${oldLine}`, 'T'), {
        namespace,
        strict: true,
      });
      const [decoded] = await codec.decode([legacy]);
      assert.deepEqual(defaultPayloadConverter.fromPayload(decoded!), order);
    }
  });

  it('strict mode refuses a payload that is not encrypted; the default passes it through', async () => {
    const ring = parseKeyRing(oldLine, 'T');
    const plain = defaultPayloadConverter.toPayload({ action: 'resolveStep', by: 'mallory' });
    const strict = new EncryptionCodec(ring, { ...NS, strict: true });
    await assert.rejects(
      strict.decode([plain]),
      (err: unknown) => err instanceof PayloadNotEncryptedError && /json\/plain/.test(err.message),
    );
    const [sealed] = await strict.encode([plain]);
    const [opened] = await strict.decode([sealed!]);
    assert.deepEqual(defaultPayloadConverter.fromPayload(opened!), {
      action: 'resolveStep',
      by: 'mallory',
    });
    assert.deepEqual(await new EncryptionCodec(ring, NS).decode([plain]), [plain]);
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

  it('ONCEFLOW_ENCRYPTION_STRICT reaches the data converter, bound to TEMPORAL_NAMESPACE', async () => {
    const keys = generateKeyLine('s');
    const plain = defaultPayloadConverter.toPayload({ x: 1 });
    const codecOf = (env: NodeJS.ProcessEnv) =>
      dataConverterFor(loadConfig({ ONCEFLOW_ENCRYPTION_KEYS: keys, ...env })).payloadCodecs![0]!;
    assert.equal(loadConfig({}).encryption.strict, false);
    assert.deepEqual(await codecOf({}).decode([plain]), [plain]);
    await assert.rejects(
      codecOf({ ONCEFLOW_ENCRYPTION_STRICT: 'true' }).decode([plain]),
      PayloadNotEncryptedError,
    );
    const [sealed] = await codecOf({ TEMPORAL_NAMESPACE: 'a' }).encode([plain]);
    await assert.rejects(
      codecOf({ TEMPORAL_NAMESPACE: 'b' }).decode([sealed!]),
      PayloadDecryptError,
    );
    assert.throws(
      () => loadConfig({ ONCEFLOW_ENCRYPTION: 'off', ONCEFLOW_ENCRYPTION_STRICT: 'true' }),
      (err: unknown) =>
        err instanceof ConfigError && err.problems[0]!.setting === 'ONCEFLOW_ENCRYPTION_STRICT',
    );
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
