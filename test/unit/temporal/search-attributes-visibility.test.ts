import { strict as assert } from 'node:assert';
import {
  quoteVisibilityValue,
  SEARCH_ATTRIBUTE,
  SYSTEM_ATTRIBUTE,
  visibility,
  VisibilityValueError,
} from '../../../src/temporal/search-attributes';

describe('visibility query builder', () => {
  it('quotes with single quotes, or double quotes when the value holds a single quote', () => {
    assert.equal(quoteVisibilityValue('order-1'), "'order-1'");
    assert.equal(quoteVisibilityValue("o'brien"), `"o'brien"`);
    assert.equal(quoteVisibilityValue('say "hi"'), `'say "hi"'`);
    assert.equal(quoteVisibilityValue(''), "''");
  });

  it('refuses values it cannot carry: both quote kinds, or a backslash', () => {
    for (const bad of [`a'b"c`, 'a\\', 'a\\b', "a\\'b", `x' OR WorkflowId = "y`])
      assert.throws(
        () => quoteVisibilityValue(bad),
        (err: unknown) => err instanceof VisibilityValueError && err.value === bad,
        bad,
      );
  });

  it('never lets a value close its quotes and add terms', () => {
    const term = visibility.equals(SEARCH_ATTRIBUTE.entityId, "x' OR EntityId = 'y");
    assert.equal(term, `EntityId = "x' OR EntityId = 'y"`);
    assert.throws(
      () => visibility.startsWith(SEARCH_ATTRIBUTE.entityId, "p' OR 'a\\"),
      VisibilityValueError,
    );
  });

  it('names the attributes from their one definition', () => {
    assert.equal(
      visibility.allOf(
        visibility.equals(SYSTEM_ATTRIBUTE.workflowType, 'orderFulfillment'),
        visibility.startsWith(SEARCH_ATTRIBUTE.entityId, 'ord-'),
        undefined,
        false,
        visibility.anyOf(
          visibility.oneOf(SEARCH_ATTRIBUTE.step, ['waiting', 'charging']),
          visibility.isUnset(SEARCH_ATTRIBUTE.step),
        ),
        visibility.before(SYSTEM_ATTRIBUTE.startTime, new Date('2026-11-23T12:00:00.000Z')),
      ),
      "WorkflowType = 'orderFulfillment' AND EntityId STARTS_WITH 'ord-' AND " +
        "(Step IN ('waiting', 'charging') OR Step IS NULL) AND " +
        "StartTime < '2026-11-23T12:00:00.000Z'",
    );
  });
});
