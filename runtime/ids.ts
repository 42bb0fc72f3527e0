import { randomBytes } from 'node:crypto';

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
    random = randomBytes(10);
  }
  lastTime = now;
  lastRandom = random;
  return encodeTime(now) + encodeRandom(random);
}

function encodeTime(time: number): string {
  let out = '';
  for (let i = 0; i < 10; i++) {
    out = ALPHABET[time % 32] + out;
    time = Math.floor(time / 32);
  }
  return out;
}

function encodeRandom(bytes: Uint8Array): string {
  let value = 0n;
  for (const byte of bytes) value = (value << 8n) | BigInt(byte);
  let out = '';
  for (let i = 0; i < 16; i++) {
    out = ALPHABET[Number(value & 31n)] + out;
    value >>= 5n;
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
