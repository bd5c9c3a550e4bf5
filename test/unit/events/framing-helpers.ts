// What the framing tests share: a message from parts, a route of a framing, its translation.
import type { IHeaders } from 'kafkajs';
import { z } from 'zod';
import { defineRoute } from '../../../src/events/define-route';
import type { RawMessage } from '../../../src/events/envelope';
import type { FramingSpec } from '../../../src/events/framing';
import type { DecodedValue } from '../../../src/events/message-value';
import { routeTableOf } from '../../../src/events/routes';
import { translateMessage, type Translation } from '../../../src/events/translate';
import { options } from './translate-helpers';

export const payment = z.object({ paymentId: z.string(), amountMinor: z.number().int() });

/** A message; header values as text, a value as JSON (or bytes as they are). */
export function message(
  key: string | null,
  value: unknown,
  headers: Record<string, string> = {},
): RawMessage {
  const h: IHeaders = {};
  for (const [k, v] of Object.entries(headers)) h[k] = Buffer.from(v);
  return {
    key: key === null ? null : Buffer.from(key),
    value: Buffer.isBuffer(value) ? value : Buffer.from(JSON.stringify(value)),
    headers: h,
  };
}

/** Translates `m` on a table of one PaymentCaptured route framed by `framing`. */
export function translateFramed(
  framing: FramingSpec,
  m: RawMessage,
  decoded?: DecodedValue,
): Translation {
  const route = defineRoute({
    eventType: 'PaymentCaptured',
    schema: payment,
    workflow: 'capture',
    framing,
  });
  return translateMessage(m, routeTableOf([route]), options, decoded);
}
