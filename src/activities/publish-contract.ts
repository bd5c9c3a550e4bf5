// The agreement between the engine's publishing activity (kafka.ts, Node) and the workflows
// that publish (a step): its name and input. Pure (no imports): workflow code imports it.

/** The engine's activity that publishes one event to Kafka. */
export const PUBLISH_ACTIVITY = 'publishEvent';

/** One event to publish: where it belongs and what identifies it. */
export interface PublishEventInput {
  /** The publishing domain: its `publishes` map names the topic of `eventType`. */
  domain: string;
  eventType: string;
  /**
   * The step's idempotency key, the same however often the step runs: the event ID (hashed
   * to the event contract's length when longer, still the same every time).
   */
  key: string;
  /** The entity the event is about: the record key (its partition) and `aggregate-id`. */
  entityId: string;
  data: unknown;
}

/** What the activity answers: the event ID and where the record went. */
export interface PublishEventResult {
  eventId: string;
  topic: string;
  partition: number;
  offset: string;
}
