/**
 * The three effects of an order, as the peer apps (Restate, DBOS) perform them: the same code
 * onceflow's activities run (the reservation transaction of src/inventory, the provider HTTP
 * clients of src/activities) with the same keys (`stepKey(orderId, step)`), so the systems
 * differ only in how they make the sequence durable.
 */
import { createHash } from 'node:crypto';
import pg from 'pg';
import { createEmailActivities } from '../../../src/domains/orders/activities/email';
import { createPaymentActivities } from '../../../src/domains/orders/activities/payments';
import type { OrderPlacedData } from '../../../src/domains/orders/order-events';
import {
  reserveStock,
  type ReserveInput,
  type ReserveResult,
} from '../../../src/domains/orders/inventory/inventory-service';
import { stepKey } from '../../../src/domains/orders/workflows/order-definitions';

export interface OrderSteps {
  /** Claims the order for `owner` (default `<system>:<orderId>`) and reserves its lines. */
  reserve(order: OrderPlacedData, owner?: string): Promise<ReserveResult>;
  charge(order: OrderPlacedData): Promise<{ chargeId: string; amountMinor: number }>;
  email(order: OrderPlacedData): Promise<{ emailId: string }>;
}

/** Payload fingerprint, as the reservation's order claim wants one (duplicate vs conflict). */
function fingerprintOf(order: OrderPlacedData): string {
  return createHash('sha256').update(JSON.stringify(order)).digest('hex');
}

/**
 * The reservation's input for an order, claimed for `owner`: what `reserve` passes to
 * `reserveStock`, and what an app that owns the transaction itself (DBOS) passes to
 * `reserveInTransaction`.
 */
export function reserveInputOf(order: OrderPlacedData, owner: string): ReserveInput {
  return {
    key: stepKey(order.orderId, 'reserve'),
    orderId: order.orderId,
    items: order.items.map((l) => ({ sku: l.sku, quantity: l.quantity })),
    workflowId: owner,
    fingerprint: fingerprintOf(order),
  };
}

/** The two provider effects (charge, email), bound to the providers' URL. */
export function createProviderSteps(deps: {
  providersUrl: string;
}): Pick<OrderSteps, 'charge' | 'email'> {
  const payments = createPaymentActivities({ url: deps.providersUrl });
  const mail = createEmailActivities({ url: deps.providersUrl });
  return {
    charge: (order) =>
      payments.chargePayment({
        key: stepKey(order.orderId, 'charge'),
        orderId: order.orderId,
        customerId: order.customerId,
        amountMinor: order.totalMinor,
        currency: order.currency,
      }),
    email: (order) =>
      mail.sendEmail({
        key: stepKey(order.orderId, 'email'),
        orderId: order.orderId,
        to: order.email,
        subject: `Order ${order.orderId} confirmed`,
        body: `Thank you. We charged ${(order.totalMinor / 100).toFixed(2)} ${order.currency}.`,
      }),
  };
}

/**
 * Steps bound to the inventory pool and the providers' URL.
 */
export function createOrderSteps(deps: {
  pool: pg.Pool;
  providersUrl: string;
  system: string;
}): OrderSteps {
  return {
    reserve: (order, owner) =>
      reserveStock(deps.pool, reserveInputOf(order, owner ?? `${deps.system}:${order.orderId}`)),
    ...createProviderSteps(deps),
  };
}

/** The OrderPlaced payload of a record value (`{"data": {...}}`, the headers envelope). */
export function orderOfValue(value: unknown): OrderPlacedData {
  const parsed = (typeof value === 'string' ? JSON.parse(value) : value) as {
    data?: OrderPlacedData;
  };
  if (!parsed?.data?.orderId) throw new Error('record is not an OrderPlaced envelope');
  return parsed.data;
}

/** Environment the peer apps read (set by the harness). */
export function readAppEnv(): {
  databaseUrl: string;
  schema: string;
  providersUrl: string;
  port: number;
  kafkaBrokers: string[];
  topic: string;
  groupId: string;
  concurrency: number;
} {
  const need = (name: string): string => {
    const v = process.env[name];
    if (!v) throw new Error(`${name} is not set`);
    return v;
  };
  return {
    databaseUrl: need('DATABASE_URL'),
    schema: need('PEER_INVENTORY_SCHEMA'),
    providersUrl: need('PROVIDERS_URL'),
    port: Number(process.env.PEER_PORT ?? 0),
    kafkaBrokers: (process.env.KAFKA_BROKERS ?? '').split(',').filter(Boolean),
    topic: process.env.PEER_TOPIC ?? '',
    groupId: process.env.PEER_GROUP_ID ?? '',
    concurrency: Number(process.env.PEER_CONCURRENCY ?? 32),
  };
}

/**
 * What both peer apps start with: their environment, a pool on the run's inventory schema (at
 * most the harness's concurrency) and the three steps bound to it.
 */
export function createPeerApp(system: string): {
  env: ReturnType<typeof readAppEnv>;
  pool: pg.Pool;
  steps: OrderSteps;
} {
  const env = readAppEnv();
  const pool = new pg.Pool({
    connectionString: env.databaseUrl,
    max: env.concurrency,
    options: `-c search_path=${env.schema}`,
  });
  // An idle client's error (a restarted Postgres) must not kill the app; the next query fails.
  pool.on('error', () => undefined);
  return { env, pool, steps: createOrderSteps({ pool, providersUrl: env.providersUrl, system }) };
}
