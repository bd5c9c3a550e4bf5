/**
 * The DLQ topic of a source topic: `<topic>.dlq` (docs/architecture.md, "Event contract"). The
 * bridge writes there, the ops CLI and reconcile read there, and topic setup creates it.
 */
export function dlqTopicOf(topic: string): string {
  return `${topic}.dlq`;
}

/** Whether a topic name is a DLQ topic by the rule above. */
export function isDlqTopic(topic: string): boolean {
  return topic.endsWith('.dlq');
}
