import { z } from 'zod';
import { ConfigError } from '../config/config-error';
import type { DataSchema } from './data-schema';
import type { Envelope } from './envelope';
import { ENVELOPE_FRAMING, type Framing } from './framing';
import type { TenantOf } from './tenant';
import { IDENTITY_STRATEGIES, type IdentityFunction, type IdentityStrategy } from './identity';

/** Where one event type goes: the workflow it starts and how its identity is derived. */
export interface Route {
  eventType: string;
  /** Temporal workflow type (the exported workflow function's name). */
  workflowType: string;
  /** A named strategy, or the route's own function of the envelope and the data. */
  identity: IdentityStrategy | IdentityFunction;
  /** Validates and normalises `data`; its output is the workflow input and is fingerprinted. */
  dataSchema: DataSchema<unknown>;
  /** First part of the workflow ID, `<prefix>:<identity>`. */
  workflowIdPrefix: string;
  /** Source topics this event type is read from. Default: every topic the bridge reads. */
  topics?: readonly string[];
  /** How its events are framed on those topics (framing.ts). Default: onceflow's envelope. */
  framing?: Framing;
  /** `false`: its values are never in the Schema Registry wire format. Default: they may be. */
  registry?: false;
  /** The Web UI's one-line static summary of validated data. Default: type, aggregate, version. */
  summarize?: (data: never) => string;
  /**
   * A rule across the envelope and the validated data (which the schema alone cannot see):
   * returns what is wrong, and the event is dead-lettered `validation-failed` with it; undefined
   * when the event is fine. Default: no rule.
   */
  checkEvent?: (envelope: Envelope, data: never) => string | undefined;
  /** The `EntityId` search attribute's value. Default: the aggregate ID. */
  entityId?: (data: never) => string | undefined;
  /** The `CustomerId` search attribute's value (hashed when configured). Default: none. */
  customerId?: (data: never) => string | undefined;
  /** The run's tenant (its fairness key), from the message and its validated data. Default: none. */
  tenant?: TenantOf;
}

/** Event type → route. Read-only: a table is built once at start and shared. */
export type RouteTable = ReadonlyMap<string, Route>;

/**
 * The route table of a list of routes (every registered domain's). Two routes for one event
 * type are a programming error: which one wins would depend on registration order.
 */
export function routeTableOf(routes: readonly Route[]): RouteTable {
  const table = new Map<string, Route>();
  for (const route of routes) {
    if (table.has(route.eventType)) {
      throw new Error(`event type ${route.eventType} is routed twice (two domains claim it)`);
    }
    table.set(route.eventType, route);
  }
  return table;
}

/**
 * The table for messages of one topic: the routes that name the topic, and those that name
 * none when the topic is one of `general` (the topics the bridge reads for them: KAFKA_TOPICS;
 * default: every topic). Returns the same table when no route names topics (the common case),
 * so nothing is copied per batch.
 */
export function routesOfTopic(
  table: RouteTable,
  topic: string,
  general?: readonly string[],
): RouteTable {
  if (![...table.values()].some((r) => r.topics)) return table;
  const readsUnnamed = general === undefined || general.includes(topic);
  return new Map(
    [...table].filter(([, r]) => (r.topics ? r.topics.includes(topic) : readsUnnamed)),
  );
}

/**
 * The framing of one topic's table (routesOfTopic): its routes' one framing, the envelope when
 * they name none. The bridge checks at start that a topic's routes agree (checkTopicFramings).
 */
export function framingOf(table: RouteTable): Framing {
  for (const route of table.values()) return route.framing ?? ENVELOPE_FRAMING;
  return ENVELOPE_FRAMING;
}

/**
 * Whether a topic's table (routesOfTopic) reads values in the Schema Registry wire format:
 * unless its routes say `registry: false` (checkTopicFramings makes them agree).
 */
export function readsRegistryValues(table: RouteTable): boolean {
  for (const route of table.values()) return route.registry !== false;
  return true;
}

/** How a route reads a topic's messages, for comparing and naming: framing and registry. */
function readingOf(route: Route): { key: string; name: string } {
  const framing = route.framing ?? ENVELOPE_FRAMING;
  return route.registry === false
    ? { key: `${framing.key}|no-registry`, name: `${framing.name} (registry: false)` }
    : { key: framing.key, name: framing.name };
}

/** Two routes that read one topic with different framings: which applies would be a guess. */
export class FramingConflictError extends Error {
  override readonly name = 'FramingConflictError';
  constructor(
    readonly topic: string,
    readonly framings: Record<string, string>,
  ) {
    super(
      `topic ${topic} is read by routes of different framings (${Object.entries(framings)
        .map(([eventType, framing]) => `${eventType}: ${framing}`)
        .join(', ')}); give each framing its own topics (a route's \`topics\`)`,
    );
  }
}

/**
 * Every topic's routes share one framing (and agree on `registry`), so a message is read one
 * way before its event type is known. Throws FramingConflictError naming the topic and the
 * routes otherwise.
 */
export function checkTopicFramings(
  table: RouteTable,
  topics: readonly string[],
  general?: readonly string[],
): void {
  for (const topic of topics) {
    const routes = [...routesOfTopic(table, topic, general).values()];
    const keys = new Set(routes.map((r) => readingOf(r).key));
    if (keys.size > 1)
      throw new FramingConflictError(
        topic,
        Object.fromEntries(routes.map((r) => [r.eventType, readingOf(r).name])),
      );
  }
}

/**
 * What a bridge subscribes to: the topics routes name, and the configured ones (KAFKA_TOPICS)
 * when some route names none (those are read from the configured topics).
 */
export function topicsOf(table: RouteTable, configured: readonly string[]): string[] {
  const routes = [...table.values()];
  const topics = new Set(routes.some((r) => !r.topics) || routes.length === 0 ? configured : []);
  for (const route of routes) for (const t of route.topics ?? []) topics.add(t);
  return [...topics];
}

/** The setting that carries extra routes (read by the config module). */
export const EXTRA_ROUTES_SETTING = 'BRIDGE_EXTRA_ROUTES';

/** Data of configured routes: any JSON object; the workflow does its own validation. */
export const anyJsonObjectSchema: z.ZodType<Record<string, unknown>> = z.record(
  z.string(),
  z.json(),
);

/** A route from configuration: any JSON object as data. */
export type ExtraRoute = Route & { dataSchema: z.ZodType<Record<string, unknown>> };

const NAME_MESSAGE = 'must start with a letter and use letters, digits, . _ - (at most 100)';
const NAME = /^[A-Za-z][A-Za-z0-9._-]{0,99}$/;
const name = z.string(NAME_MESSAGE).regex(NAME, NAME_MESSAGE);

// A bare string is shorthand for `{ workflowType }`; preprocessing (not a union) keeps the
// error messages about the field that is wrong instead of zod's generic "Invalid input".
const routeSpec = z.preprocess(
  (v) => (typeof v === 'string' ? { workflowType: v } : v),
  z.strictObject(
    {
      workflowType: name,
      identity: z
        .enum(
          IDENTITY_STRATEGIES as [IdentityStrategy, ...IdentityStrategy[]],
          'must be aggregate-version or event-id',
        )
        .optional(),
      workflowIdPrefix: name.optional(),
    },
    {
      error: (issue) =>
        issue.code === 'invalid_type'
          ? 'must be a workflow type or { workflowType, identity?, workflowIdPrefix? }'
          : undefined,
    },
  ),
);

const extraRoutesSchema = z.record(
  z.string(),
  routeSpec,
  'must be a JSON object from event type to workflow type',
);

function pathOf(path: ReadonlyArray<PropertyKey>): string {
  return path.map(String).join('.');
}

/**
 * Parses extra routes from configuration (the value of BRIDGE_EXTRA_ROUTES, as JSON text or
 * already parsed). Shape: an object from event type to either a workflow type, or
 * `{ workflowType, identity?, workflowIdPrefix? }` (defaults: `aggregate-version`, the event
 * type). Example: `{"InvoiceIssued":"invoiceWorkflow","Refund":{"workflowType":"refund",
 * "identity":"event-id"}}`. Extra routes accept any JSON object as data. Throws ConfigError
 * naming every problem, so the bridge stops at start instead of mis-routing later.
 */
export function parseExtraRoutes(
  input: unknown,
  setting: string = EXTRA_ROUTES_SETTING,
): ExtraRoute[] {
  let value = input;
  if (typeof input === 'string') {
    if (input.trim() === '') return [];
    try {
      value = JSON.parse(input) as unknown;
    } catch (err) {
      throw new ConfigError([{ setting, message: `is not JSON: ${(err as Error).message}` }]);
    }
  }
  const parsed = extraRoutesSchema.safeParse(value);
  const problems = parsed.success
    ? []
    : parsed.error.issues.map((i) => ({
        setting: i.path.length ? `${setting}.${pathOf(i.path)}` : setting,
        message: i.message,
      }));
  // Event types are checked here rather than by a record key schema, whose error says only
  // "Invalid key in record".
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    for (const eventType of Object.keys(value).filter((k) => !NAME.test(k))) {
      problems.push({ setting: `${setting}.${eventType}`, message: `event type ${NAME_MESSAGE}` });
    }
  }
  if (!parsed.success || problems.length > 0) throw new ConfigError(problems);
  return Object.entries(parsed.data).map(([eventType, spec]) => ({
    eventType,
    workflowType: spec.workflowType,
    identity: spec.identity ?? 'aggregate-version',
    dataSchema: anyJsonObjectSchema,
    workflowIdPrefix: spec.workflowIdPrefix ?? eventType,
  }));
}

/**
 * The base table plus extra routes. An extra route may not redefine a base event type: that
 * would silently drop the built-in data validation (OrderPlaced amounts, for one).
 */
export function mergeRoutes(
  base: RouteTable,
  extra: readonly Route[],
  setting: string = EXTRA_ROUTES_SETTING,
): RouteTable {
  const problems = extra
    .filter((r) => base.has(r.eventType))
    .map((r) => ({
      setting: `${setting}.${r.eventType}`,
      message: 'is a built-in route and cannot be redefined',
    }));
  if (problems.length > 0) throw new ConfigError(problems);
  const merged = new Map(base);
  for (const route of extra) merged.set(route.eventType, route);
  return merged;
}

/** `base` plus the routes of a BRIDGE_EXTRA_ROUTES value (undefined or blank: `base` itself). */
export function withExtraRoutes(base: RouteTable, extraRoutes?: unknown): RouteTable {
  if (extraRoutes === undefined) return base;
  return mergeRoutes(base, parseExtraRoutes(extraRoutes));
}
