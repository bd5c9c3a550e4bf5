import type { IHeaders } from 'kafkajs';
import { z } from 'zod';
import { firstHeaderText } from './headers';
import type { PoisonReason } from './poison';

/**
 * The stub DLQ record's format: what the bridge writes instead of the full DLQ record when the
 * DLQ refused that (src/kafka-bridge/dlq-stub.ts builds it) and what `dlq replay` reads back to
 * find the original in its source topic. One owner, beside the full record (dlq-message.ts).
 */
export const DLQ_STUB_HEADER = {
  stub: 'dlq-stub',
  cause: 'dlq-stub-cause',
} as const;

/** The JSON value of a stub record. */
export interface DlqStubValue {
  stub: true;
  reason: PoisonReason;
  error: string;
  /** Why the DLQ refused the full record. */
  refusal: string;
  source: { topic: string; partition: number; offset: string };
  key: { size: number; sha256: string } | null;
  value: { size: number; sha256: string; headBase64: string } | null;
  headers: { count: number; names: string[]; namesTruncated: boolean };
}

/** A DLQ record's headers say it is a stub (`dlq-stub: true`). */
export function isDlqStub(headers: IHeaders | undefined): boolean {
  return firstHeaderText(headers, DLQ_STUB_HEADER.stub) === 'true';
}

const sha256 = z.string().regex(/^[0-9a-f]{64}$/);
const digest = z.object({ size: z.number().int().nonnegative(), sha256 });

/** The part of a stub's value that locates and identifies the original. */
const stubLocator = z.object({
  source: z.object({
    topic: z.string().min(1),
    partition: z.number().int().nonnegative(),
    offset: z.string().regex(/^(0|[1-9][0-9]{0,18})$/),
  }),
  key: digest.nullable(),
  value: digest.nullable(),
});

/** Where a stub's original is and how to recognise it. */
export type DlqStubLocator = z.infer<typeof stubLocator>;

/**
 * The source coordinates and hashes of a stub record's value; undefined when the value is
 * not a stub's JSON (anyone who can write to the DLQ can write anything there).
 */
export function readDlqStubLocator(value: Buffer | null): DlqStubLocator | undefined {
  if (value === null) return undefined;
  try {
    const parsed = stubLocator.safeParse(JSON.parse(value.toString('utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
