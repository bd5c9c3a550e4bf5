/**
 * OrderPlaced as Protobuf the ways real schemas are split: its lines in a referenced file of
 * the same package (the usual common.proto, listed first so its messages come first), and with
 * a google.protobuf.Timestamp (a well-known type serializers do not register as a reference).
 * The fields are those of src/domains/orders/order-events.ts, so the order route validates the
 * decoded value as it is.
 */

const ORDER_FIELDS = `  string order_id = 1;
  string customer_id = 2;
  string email = 3;
  string currency = 4;
  repeated OrderLine items = 5;
  int32 total_minor = 6;`;

const LINE = `message OrderLine {
  string sku = 1;
  int32 quantity = 2;
  int32 unit_price_minor = 3;
}`;

/** A file of shared messages in package onceflow.test, for a schema to import as `path`. */
export function commonProto(): string {
  return `syntax = "proto3";
package onceflow.test;

${LINE}

message Money {
  string currency = 1;
  int64 minor = 2;
}
`;
}

/** OrderPlaced importing its OrderLine from `commonPath` (same package). */
export function orderPlacedImporting(commonPath: string): string {
  return `syntax = "proto3";
package onceflow.test;

import "${commonPath}";

message OrderPlaced {
${ORDER_FIELDS}
}
`;
}

/** OrderPlaced with a `placed_at` google.protobuf.Timestamp. */
export const ORDER_PLACED_WITH_TIMESTAMP = `syntax = "proto3";
package onceflow.test;

import "google/protobuf/timestamp.proto";

message OrderPlaced {
${ORDER_FIELDS}
  google.protobuf.Timestamp placed_at = 7;
}

${LINE}
`;
