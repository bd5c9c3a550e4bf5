// The cart domain's activities, one per foreign call, on the engine's public API only: the
// sandbox warehouse holds and releases one line (`/v1/holds`), the payment provider charges a
// card and refunds the cart, the carrier books and cancels the shipment, the mail API sends
// the notice and the receipt. The cart ID is each provider's `orderId`.
import { ApplicationFailure } from '@temporalio/common';
import { postToProvider, type ActivityDeps } from '../../index';
import { CART_FAILURES, CART_MAILS, type CartMail } from './workflows/cart-names';

export function createCartActivities(deps: ActivityDeps) {
  const providers = () => deps.providers ?? { url: deps.config?.providers.url ?? '' };
  /** POSTs an undo; a 404 means there was nothing to undo (the effect never happened). */
  const undo = async (path: string, key: string, body: object) => {
    const res = await postToProvider(providers(), { path, key, body, accept: [404] });
    return res.status !== 404;
  };
  return {
    /** Holds one line at the warehouse, under the line's `reserve:<sku>` key. */
    async holdCartLine(input: {
      key: string;
      cartId: string;
      sku: string;
      quantity: number;
    }): Promise<{ holdId: string }> {
      const res = await postToProvider(providers(), {
        path: '/v1/holds',
        key: input.key,
        body: { orderId: input.cartId, sku: input.sku, quantity: input.quantity },
      });
      return { holdId: String((res.body as { id?: unknown }).id) };
    },
    /** Releases the line's hold (whichever key held it); false: there was none. */
    async releaseCartLine(input: {
      key: string;
      cartId: string;
      sku?: string;
    }): Promise<{ released: boolean }> {
      return {
        released: await undo('/v1/holds/release', input.key, {
          orderId: input.cartId,
          sku: input.sku,
        }),
      };
    },
    /** Charges a card for the cart; a declined card is the business failure CardDeclined. */
    async chargeCartCard(input: {
      key: string;
      cartId: string;
      customerId: string;
      amountMinor: number;
      currency: string;
      card: string;
    }): Promise<{ chargeId: string }> {
      const res = await postToProvider(providers(), {
        path: '/v1/charges',
        key: input.key,
        body: {
          orderId: input.cartId,
          customerId: input.customerId,
          amountMinor: input.amountMinor,
          currency: input.currency,
          source: input.card,
        },
        accept: [402],
      });
      if (res.status === 402)
        throw ApplicationFailure.create({
          type: CART_FAILURES.cardDeclined,
          message: `card ${input.card} declined for cart ${input.cartId}`,
          nonRetryable: true,
        });
      return { chargeId: String((res.body as { id?: unknown }).id) };
    },
    /** Refunds every charge of the cart, each once (false: nothing was charged). */
    async refundCart(input: { key: string; cartId: string }): Promise<{ refunded: boolean }> {
      return { refunded: await undo('/v1/refunds', input.key, { orderId: input.cartId }) };
    },
    /** Books the cart's shipment with the carrier. */
    async bookCartShipment(input: {
      key: string;
      cartId: string;
      address: string;
    }): Promise<{ shipmentId: string }> {
      const res = await postToProvider(providers(), {
        path: '/v1/shipments',
        key: input.key,
        body: { orderId: input.cartId, address: input.address },
      });
      return { shipmentId: String((res.body as { id?: unknown }).id) };
    },
    /** Cancels the cart's shipment (false: none was booked). */
    async cancelCartShipment(input: {
      key: string;
      cartId: string;
    }): Promise<{ cancelled: boolean }> {
      return {
        cancelled: await undo('/v1/shipments/cancel', input.key, { orderId: input.cartId }),
      };
    },
    /** Mails the customer the shipping notice or the receipt. */
    async mailCartCustomer(input: {
      key: string;
      cartId: string;
      to: string;
      mail: CartMail;
      text: string;
    }): Promise<void> {
      await postToProvider(providers(), {
        path: '/v1/emails',
        key: input.key,
        body: {
          orderId: input.cartId,
          to: input.to,
          subject: CART_MAILS[input.mail](input.cartId),
          body: input.text,
        },
      });
    },
  };
}

export type CartActivities = ReturnType<typeof createCartActivities>;
