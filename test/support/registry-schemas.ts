/**
 * The schemas registry tests write with: OrderPlaced as Avro (the demo's) and as Protobuf
 * (the fields of src/domains/orders/order-events.ts, so the order route validates the
 * decoded value as it is), and a small account event in two compatible versions (v2 adds an
 * optional field).
 */

export { ORDER_PLACED_AVRO } from '../../harness/tools/order-avro';

export const ORDER_PLACED_PROTO = `syntax = "proto3";
package onceflow.test;

message OrderPlaced {
  string order_id = 1;
  string customer_id = 2;
  string email = 3;
  string currency = 4;
  repeated OrderLine items = 5;
  int32 total_minor = 6;
}

message OrderLine {
  string sku = 1;
  int32 quantity = 2;
  int32 unit_price_minor = 3;
}
`;

const account = (extra: object[]) =>
  JSON.stringify({
    type: 'record',
    name: 'AccountChanged',
    namespace: 'onceflow.test',
    fields: [
      { name: 'accountId', type: 'string' },
      { name: 'balanceMinor', type: 'long' },
      ...extra,
    ],
  });

/** Version 1 of the account event. */
export const ACCOUNT_V1_AVRO = account([]);

/** Version 2: a new optional field (BACKWARD and FORWARD compatible with version 1). */
export const ACCOUNT_V2_AVRO = account([{ name: 'note', type: ['null', 'string'], default: null }]);

/**
 * The account event with its optional note first: a null note encodes as a zero byte first, so
 * raw Avro of it (a producer that forgot the registry's framing) looks like the wire format.
 */
export const ACCOUNT_NOTE_FIRST_AVRO = JSON.stringify({
  type: 'record',
  name: 'AccountNoted',
  namespace: 'onceflow.test',
  fields: [
    { name: 'note', type: ['null', 'string'], default: null },
    { name: 'accountId', type: 'string' },
    { name: 'balanceMinor', type: 'long' },
  ],
});

/** A schema of its own per call (a unique record name), so the registry gives it a new ID. */
export function uniqueAccountAvro(name: string): string {
  return JSON.stringify({
    type: 'record',
    name,
    namespace: 'onceflow.test',
    fields: [
      { name: 'accountId', type: 'string' },
      { name: 'balanceMinor', type: 'long' },
    ],
  });
}
