import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/**
 * The Keyword search attributes the Web UI and the ops CLI query on; registered by the dev
 * stack (and docker-compose). Shared by the bridge (set at start) and the workflows (kept
 * current), so the names are written once.
 */
export const SEARCH_ATTRIBUTE = {
  orderId: defineSearchAttributeKey('OrderId', SearchAttributeType.KEYWORD),
  customerId: defineSearchAttributeKey('CustomerId', SearchAttributeType.KEYWORD),
  orderStep: defineSearchAttributeKey('OrderStep', SearchAttributeType.KEYWORD),
  eventId: defineSearchAttributeKey('EventId', SearchAttributeType.KEYWORD),
  eventType: defineSearchAttributeKey('EventType', SearchAttributeType.KEYWORD),
} as const;
