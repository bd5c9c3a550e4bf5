/**
 * Building blocks of hostile messages: random choices from a seeded PRNG, odd identifiers,
 * header sets, invalid UTF-8 and numbers at the limits. Pure; generate.ts combines them.
 */

/** A seeded source of choices (src/util/prng.ts underneath). */
export interface Rand {
  next(): number;
  int(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
  chance(p: number): boolean;
  bytes(n: number): Buffer;
}

export function createRand(next: () => number): Rand {
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  return {
    next,
    int,
    pick: (items) => items[int(0, items.length - 1)]!,
    chance: (p) => next() < p,
    bytes: (n) => {
      const out = Buffer.allocUnsafe(n);
      for (let i = 0; i < n; i++) out[i] = Math.floor(next() * 256);
      return out;
    },
  };
}

/** Header names that are properties of every JavaScript object. */
export const PROTOTYPE_NAMES = [
  'constructor',
  '__proto__',
  'toString',
  'valueOf',
  'hasOwnProperty',
  'isPrototypeOf',
  'propertyIsEnumerable',
  'toLocaleString',
  '__defineGetter__',
  '__lookupGetter__',
] as const;

/** Byte sequences that are not UTF-8: stray continuation, overlong, CESU surrogate, 0xFF. */
export const INVALID_UTF8 = [
  Buffer.from([0x80]),
  Buffer.from([0xc0, 0xaf]),
  Buffer.from([0xed, 0xa0, 0x80]),
  Buffer.from([0xff, 0xfe]),
  Buffer.from([0xe2, 0x82]),
  Buffer.from([0xf4, 0x90, 0x80, 0x80]),
];

/**
 * Odd suffixes for IDs: lone surrogates (only a JSON body can carry them: UTF-8 cannot),
 * the replacement character they would collide with, the identity's own separators, URL and
 * hash characters, long repeats, combining marks, right-to-left text, emoji and whitespace.
 */
export const ODD_ID_SUFFIXES = [
  '\ud800',
  '\udc00',
  '\ufffd',
  'é'.repeat(40),
  'e\u0301'.repeat(20),
  '~',
  '~0',
  '@1',
  '@',
  '%',
  '%2F',
  '/',
  ':',
  '::',
  "'",
  '"',
  '\\',
  ' ',
  '\u200b',
  '\u202e',
  '😀'.repeat(30),
  'x'.repeat(180),
  'y'.repeat(300),
  'z'.repeat(5_000),
  '\u0000',
  '\n',
];

/** Numbers (as JSON text) at and past every limit a parser or a bigint column has. */
export const LIMIT_NUMBERS = [
  '0',
  '-0',
  '1',
  '-1',
  '9007199254740991',
  '9007199254740992',
  '9007199254740993',
  '-9007199254740993',
  '9223372036854775807',
  '9223372036854775808',
  '1.7976931348623157e308',
  '1e309',
  '-1e309',
  '5e-324',
  '1e-400',
  '0.1',
  '1.0',
  '1e2',
  '1'.repeat(400),
];

/** Text forms of an aggregate version at the limits. */
export const LIMIT_VERSIONS = [
  '0',
  '-1',
  '01',
  ' 1',
  '1 ',
  '1e3',
  '1.0',
  '0x10',
  '9007199254740991',
  '9007199254740993',
  '9223372036854775807',
  '9223372036854775808',
  '99999999999999999999999',
  '',
];

/** A random header name: plain, empty, unicode, long or made of invalid UTF-8 bytes. */
export function randomHeaderName(rand: Rand): string {
  switch (rand.int(0, 6)) {
    case 0:
      return '';
    case 1:
      return rand.pick(PROTOTYPE_NAMES);
    case 2:
      return `h-${'é😀'.repeat(rand.int(1, 20))}`;
    case 3:
      return 'n'.repeat(rand.int(100, 3_000));
    case 4:
      return rand.pick([
        'event-id',
        'event-type',
        'aggregate-id',
        'aggregate-version',
        'dlq-reason',
      ]);
    default:
      return `h-${rand.int(0, 1_000_000)}`;
  }
}

/** A random header value: null, empty, binary, invalid UTF-8, text or large. */
export function randomHeaderValue(rand: Rand): Buffer | string | null {
  switch (rand.int(0, 6)) {
    case 0:
      return null;
    case 1:
      return '';
    case 2:
      return rand.bytes(rand.int(1, 64));
    case 3:
      return rand.pick(INVALID_UTF8);
    case 4:
      return 'v'.repeat(rand.int(1_000, 20_000));
    default:
      return `v-${rand.int(0, 1_000_000)}`;
  }
}

/** JSON text nested `depth` levels deep (arrays or objects), built without recursion. */
export function deepJson(depth: number, objects: boolean): string {
  return objects
    ? '{"a":'.repeat(depth) + '1' + '}'.repeat(depth)
    : '['.repeat(depth) + ']'.repeat(depth);
}
