import { strict as assert } from 'node:assert';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  previousDbFile,
  rotateTemporalDb,
  temporalDbBytes,
  temporalDbMaxBytes,
} from '../../../../harness/stack/temporal-db-rotation';

describe('stack: the dev server database is bounded at start', () => {
  const folder = () => mkdtempSync(join(tmpdir(), 'onceflow-temporal-db-'));

  it('moves a database over the bound aside, with its WAL and shared memory, replacing the previous one', () => {
    const dir = folder();
    const db = join(dir, 'temporal.sqlite');
    writeFileSync(db, 'x'.repeat(600));
    writeFileSync(`${db}-wal`, 'w'.repeat(500));
    writeFileSync(`${db}-shm`, 's'.repeat(10));
    const previous = previousDbFile(db);
    assert.equal(previous, join(dir, 'temporal.previous.sqlite'));
    writeFileSync(previous, 'an older rotation');
    writeFileSync(`${previous}-wal`, 'its wal');
    const lines: string[] = [];
    assert.equal(temporalDbBytes(db), 1110);
    assert.equal(
      rotateTemporalDb(db, 1000, (l) => lines.push(l)),
      1110,
    );
    assert.equal(existsSync(db), false);
    assert.equal(existsSync(`${db}-wal`), false);
    assert.equal(readFileSync(previous, 'utf8'), 'x'.repeat(600));
    assert.equal(readFileSync(`${previous}-wal`, 'utf8'), 'w'.repeat(500));
    assert.equal(readFileSync(`${previous}-shm`, 'utf8'), 's'.repeat(10));
    assert.match(
      lines.join('\n'),
      /over ONCEFLOW_TEMPORAL_DB_MAX_MB=.*moved to temporal\.previous\.sqlite/,
    );
  });

  it('keeps a database within the bound, and does nothing without one', () => {
    const dir = folder();
    const db = join(dir, 'temporal.sqlite');
    assert.equal(
      rotateTemporalDb(db, 0, () => assert.fail('nothing to move')),
      0,
    );
    writeFileSync(db, 'x'.repeat(100));
    assert.equal(
      rotateTemporalDb(db, 1000, () => assert.fail('within the bound')),
      0,
    );
    assert.equal(readFileSync(db, 'utf8').length, 100);
  });

  it('reads ONCEFLOW_TEMPORAL_DB_MAX_MB (default 256 MiB; 0 starts empty every time), naming it when bad', () => {
    assert.equal(temporalDbMaxBytes({}), 256 * 2 ** 20);
    assert.equal(temporalDbMaxBytes({ ONCEFLOW_TEMPORAL_DB_MAX_MB: '0' }), 0);
    assert.equal(temporalDbMaxBytes({ ONCEFLOW_TEMPORAL_DB_MAX_MB: '1024' }), 2 ** 30);
    assert.throws(
      () => temporalDbMaxBytes({ ONCEFLOW_TEMPORAL_DB_MAX_MB: '1.5GB' }),
      /ONCEFLOW_TEMPORAL_DB_MAX_MB: must be a whole number of MiB/,
    );
  });
});
