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
    now = lastTime;
  } else {
    random = freshRandom();
  }
  lastTime = now;
  lastRandom = random;
  return encodeTime(now) + encodeRandom(random);
}

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

function encodeTime(time: number): string {
  let out = '';
  for (let i = 0; i < 10; i++) {
    out = ALPHABET[time % 32] + out;
    time = Math.floor(time / 32);
  }
  return out;
}

/** 80 bits as 16 characters: two halves of 40 bits, each exact in a double (no BigInt needed). */
function encodeRandom(bytes: Uint8Array): string {
  return encode40(bytes, 0) + encode40(bytes, 5);
}

function encode40(bytes: Uint8Array, at: number): string {
  let value = bytes[at]! * 2 ** 32 + (((bytes[at + 1]! << 24) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 8) | bytes[at + 4]!) >>> 0);
  let out = '';
  for (let i = 0; i < 8; i++) {
    out = ALPHABET[value % 32] + out;
    value = Math.floor(value / 32);
  }
  return out;
}

function increment(bytes: Uint8Array): Uint8Array {
  const next = Uint8Array.from(bytes);
  for (let i = next.length - 1; i >= 0; i--) {
    const byte = next[i]!;
    next[i] = (byte + 1) & 255;
    if (byte !== 255) break;
  }
  return next;
}
