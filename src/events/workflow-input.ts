/**
 * What the bridge passes to every workflow it starts: the validated event data and where it
 * came from. Types only, so workflow code can import it.
 */
export interface EventMeta {
  eventId: string;
  eventType: string;
  /** `aggregateId@version` or the event ID (docs/architecture.md, "Identity and deduplication"). */
  identity: string;
  aggregateId: string;
  aggregateVersion?: number;
  /** sha256 of the canonical JSON of `data`. */
  fingerprint: string;
  source: { topic: string; partition: number; offset: string };
}

export interface EventWorkflowInput<TData> {
  data: TData;
  event: EventMeta;
  /**
   * Set on a run started to compensate another (`npx onceflow <domain> cancel` of a run that
   * closed unfinished): it starts cancelled, by this operator, for this reason.
   */
  cancel?: { reason: string; by?: string; at?: string };
}
