import { ApplicationFailure } from '@temporalio/common';
import { failureBody } from '../../../activities/failure-body';
import { postToProvider, type ProviderClientOptions } from '../../../activities/provider-http';
import { ORDER_FAILURES } from '../workflows/order-failures';

export interface ChargePaymentInput {
  /** Idempotency key derived by the workflow (`order:<orderId>:charge`). */
  key: string;
  orderId: string;
  customerId: string;
  amountMinor: number;
  currency: string;
}

export interface ChargePaymentResult {
  chargeId: string;
  amountMinor: number;
}

export interface RefundPaymentInput {
  /** Idempotency key derived by the workflow (`order:<orderId>:refund`). */
  key: string;
  orderId: string;
  /** The charge to refund; without it the provider refunds every charge of the order. */
  chargeId?: string;
}

export interface RefundPaymentResult {
  /** False when the provider holds no charge for the order: nothing to give back. */
  refunded: boolean;
  /** Charges this request refunded (normally one; every charge the order had). */
  chargeIds: string[];
  refundIds: string[];
  /** Sum refunded by this request. */
  amountMinor: number;
  /** Charges refunded before (by this key earlier, or another), not refunded again. */
  alreadyRefundedChargeIds: string[];
}

/**
 * Payment activities over the provider's HTTP API. Swap this file for a Stripe client with
 * the same inputs and failure types and no workflow changes.
 */
export function createPaymentActivities(options: ProviderClientOptions) {
  return {
    async chargePayment(input: ChargePaymentInput): Promise<ChargePaymentResult> {
      const { status, body } = await postToProvider(options, {
        path: '/v1/charges',
        key: input.key,
        body: {
          orderId: input.orderId,
          customerId: input.customerId,
          amountMinor: input.amountMinor,
          currency: input.currency,
        },
        accept: [402],
      });
      if (status === 402) {
        throw ApplicationFailure.create({
          type: ORDER_FAILURES.paymentDeclined,
          message: `payment for order ${input.orderId} declined`,
          nonRetryable: true,
          details: [{ orderId: input.orderId, key: input.key, body: failureBody(body) }],
        });
      }
      return { chargeId: String(body.id), amountMinor: Number(body.amountMinor) };
    },

    async refundPayment(input: RefundPaymentInput): Promise<RefundPaymentResult> {
      const { status, body } = await postToProvider(options, {
        path: '/v1/refunds',
        key: input.key,
        body: { orderId: input.orderId, chargeId: input.chargeId },
        accept: [404],
      });
      if (status === 404) {
        return {
          refunded: false,
          chargeIds: [],
          refundIds: [],
          amountMinor: 0,
          alreadyRefundedChargeIds: [],
        };
      }
      const refunds = (body.refunds ?? []) as Array<{ id: string; chargeId: string }>;
      const earlier = (body.earlier ?? []) as Array<{ chargeId: string }>;
      return {
        refunded: true,
        chargeIds: refunds.map((r) => String(r.chargeId)),
        refundIds: refunds.map((r) => String(r.id)),
        amountMinor: Number(body.amountMinor ?? 0),
        alreadyRefundedChargeIds: earlier.map((r) => String(r.chargeId)),
      };
    },
  };
}
