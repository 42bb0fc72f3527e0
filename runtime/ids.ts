import { randomFillSync } from 'node:crypto';

/** Crockford base32: sorts the same as the numbers it encodes. */
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

let lastTime = -1;
let lastRandom: Uint8Array = new Uint8Array(10);

/**
 * A new record id: 26 characters, a 48-bit millisecond time followed by 80 random bits (ULID layout).
 * Ids sort by creation time, so new records come last when ordered by id; within one millisecond
 * in one process the random part is incremented so order still holds. Across instances the
 * 80 random bits make collisions practically impossible.
 */
export function newId(now: number = Date.now()): string {
  let random: Uint8Array;
  if (now <= lastTime) {
    random = increment(lastRandom);
  } else {
    random = freshRandom();
    lastTime = now;
    timePart = encodeTime(now);
  }
  lastRandom = random;
  return timePart + encodeRandom(random);
}

/** The id of `time` (ms) and 10 random bytes: what newId returns, as a pure function (for tests). */
export function encodeId(time: number, random: Uint8Array): string {
  return encodeTime(time) + encodeRandom(random);
}

/** `lastTime` as its 10 characters: ids of one millisecond share them. */
let timePart = '';

/** Random bytes for this many ids are drawn at once: one call into the CSPRNG, not one per id. */
const POOLED_IDS = 256;
const randomPool = new Uint8Array(10 * POOLED_IDS);
let poolOffset = randomPool.length;

/** 10 fresh random bytes (a copy: the pool is refilled while `lastRandom` may still be in use). */
function freshRandom(): Uint8Array {
  if (poolOffset === randomPool.length) {
    randomFillSync(randomPool);
    poolOffset = 0;
  }
  poolOffset += 10;
  return randomPool.slice(poolOffset - 10, poolOffset);
}

/**
 * Every 10-bit number as its two characters: an id is built from 13 look-ups instead of 26
 * divisions and string prepends (an id took about 2.5 µs, and each request makes one or more).
 */
const PAIRS: readonly string[] = Array.from({ length: 1024 }, (_, value) => ALPHABET[value >> 5]! + ALPHABET[value & 31]!);

/** 48 bits of milliseconds as 10 characters (50 bits: the first is always 0 until the year 10889). */
function encodeTime(time: number): string {
  const high = Math.floor(time / 2 ** 30); // the top 20 bits
  const low = time % 2 ** 30; // the bottom 30
  return PAIRS[(high >> 10) & 1023]! + PAIRS[high & 1023]! + PAIRS[(low >> 20) & 1023]! + PAIRS[(low >> 10) & 1023]! + PAIRS[low & 1023]!;
}

/** 80 bits as 16 characters, 40 bits (8 characters) at a time. */
function encodeRandom(bytes: Uint8Array): string {
  return encode40(bytes, 0) + encode40(bytes, 5);
}

function encode40(bytes: Uint8Array, at: number): string {
  const high = (bytes[at]! << 12) | (bytes[at + 1]! << 4) | (bytes[at + 2]! >> 4); // 20 bits
  const low = ((bytes[at + 2]! & 15) << 16) | (bytes[at + 3]! << 8) | bytes[at + 4]!; // 20 bits
  return PAIRS[high >> 10]! + PAIRS[high & 1023]! + PAIRS[low >> 10]! + PAIRS[low & 1023]!;
}

function increment(bytes: Uint8Array): Uint8Array {
  const next = new Uint8Array(bytes);
  for (let i = next.length - 1; i >= 0; i--) {
    const byte = next[i]!;
    next[i] = (byte + 1) & 255;
    if (byte !== 255) break;
  }
  return next;
}
