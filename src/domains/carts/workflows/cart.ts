// CartCheckedOut → hold each line (a loop: one call per SKU, each with its own key and its own
// release) → charge the primary card, or the backup card when the primary is declined (a
// caught business failure) → two branches at once: book the shipment then mail the notice,
// and mail the receipt then publish CartFulfilled. Plain code on onceflow/workflow only. The
// engine claims the cart before the body (a re-send ends `duplicate`) and settles it at the
// end; both cards declined ends it `declined`; a cancellation (signal, or Temporal's own)
// stops every call going forward and undoes each effect that may exist once: the shipment
// cancelled, the charge refunded, every held line released. Workflow code.
import { defineWorkflow, StepFailure } from '../../../workflow';
import type { CartActivities } from '../activities';
import type { CartCheckedOutData } from '../cart-events';
import {
  CART_FAILURES,
  CART_FULFILLED,
  CART_KEY_KIND,
  CART_PROVIDER,
  CARTS_DOMAIN,
} from './cart-names';

/** A charge of the cart: the card it charges, refunded (every charge of the cart) to undo. */
const chargeStep = (running: string, refund: string) =>
  ({
    activity: 'chargeCartCard',
    retry: 'foreign',
    provider: CART_PROVIDER.card,
    running,
    failures: { [CART_FAILURES.cardDeclined]: 'declined' },
    // By cart, never by charge ID: the cancellation of a fulfilled cart refunds with the same
    // request, and the provider refunds each charge once whoever asks first.
    compensate: {
      name: refund,
      activity: 'refundCart',
      retry: 'foreign',
      provider: CART_PROVIDER.card,
      input: ({ data }: { data: CartCheckedOutData }) => ({ cartId: data.cartId }),
    },
  }) as const;

/** The cart workflow: every line held once, one charge kept, one shipment, two mails, one event. */
export const cart = defineWorkflow<CartCheckedOutData, CartActivities>()({
  name: 'cart',
  domain: CARTS_DOMAIN,
  entity: { kind: CART_KEY_KIND, id: (d) => d.cartId, customerId: (d) => d.customerId },
  steps: {
    reserve: {
      activity: 'holdCartLine',
      retry: 'foreign',
      provider: CART_PROVIDER.warehouse,
      running: 'reserving',
      // Called once per line (`steps.reserve.each(sku, …)`): its release is the line's too,
      // key `cart:<cartId>:release:<sku>`.
      compensate: {
        name: 'release',
        activity: 'releaseCartLine',
        retry: 'foreign',
        provider: CART_PROVIDER.warehouse,
        input: ({ data, item }) => ({ cartId: data.cartId, sku: item }),
      },
    },
    charge: chargeStep('charging', 'refund'),
    'charge-backup': chargeStep('charging_backup', 'refund-backup'),
    ship: {
      activity: 'bookCartShipment',
      retry: 'foreign',
      provider: CART_PROVIDER.shipping,
      running: 'shipping',
      compensate: {
        name: 'unship',
        activity: 'cancelCartShipment',
        retry: 'foreign',
        provider: CART_PROVIDER.shipping,
        input: ({ data }) => ({ cartId: data.cartId }),
      },
    },
    notice: {
      activity: 'mailCartCustomer',
      retry: 'foreign',
      running: 'mailing_notice',
      provider: CART_PROVIDER.mail,
    },
    receipt: {
      activity: 'mailCartCustomer',
      retry: 'foreign',
      running: 'mailing_receipt',
      provider: CART_PROVIDER.mail,
    },
    announce: { publish: CART_FULFILLED, provider: CART_PROVIDER.kafka },
  },
  counterpart: {
    reserve: 'the warehouse',
    charge: 'the payment provider',
    'charge-backup': 'the payment provider',
    ship: 'the carrier',
    notice: 'the mail API',
    receipt: 'the mail API',
  },
  async run({ data, steps }) {
    const { cartId } = data;
    for (const line of data.lines)
      await steps.reserve.each(line.sku, { cartId, sku: line.sku, quantity: line.quantity });

    const charge = {
      cartId,
      customerId: data.customerId,
      amountMinor: data.totalMinor,
      currency: data.currency,
    };
    let paid: { chargeId: string; paidBy: 'primary' | 'backup' };
    try {
      paid = { ...(await steps.charge({ ...charge, card: data.primaryCard })), paidBy: 'primary' };
    } catch (err) {
      // Only a declined primary falls back; a cancellation or any other error goes on up.
      if (!(err instanceof StepFailure) || data.backupCard === undefined) throw err;
      const backup = await steps['charge-backup']({ ...charge, card: data.backupCard });
      paid = { ...backup, paidBy: 'backup' };
    }

    const total = `${(data.totalMinor / 100).toFixed(2)} ${data.currency}`;
    const mail = { cartId, to: data.email };
    const [shipment, published] = await Promise.all([
      (async () => {
        const booked = await steps.ship({ cartId, address: data.address });
        await steps.notice({ ...mail, mail: 'notice', text: `Your cart is on its way.` });
        return booked;
      })(),
      (async () => {
        await steps.receipt({ ...mail, mail: 'receipt', text: `We charged ${total}.` });
        return steps.announce({ cartId, chargeId: paid.chargeId, paidBy: paid.paidBy });
      })(),
    ]);
    return { ...paid, shipmentId: shipment.shipmentId, eventId: published.eventId };
  },
});
