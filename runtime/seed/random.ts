/**
 * The seed's source of chance: a small deterministic generator (splitmix32), started again for
 * each value from the seed, the record's number and the value's stream (a field's place, a line's
 * field and position), so that one value does not depend on another and the same seed gives the
 * same data on every machine. One instance is reused for every value, so that making values
 * allocates nothing.
 */
export class Random {
  private state = 0;

  /** Starts the stream `stream` (and `part`, e.g. a line's position) of record `n`. */
  reset(seed: number, n: number, stream: number, part = 0): void {
    const record = mix(mix(mix(seed | 0) ^ n) ^ (stream + 1));
    this.state = (part === 0 ? record : mix(record ^ part)) | 0;
  }

  private next(): number {
    this.state = (this.state + 0x9e3779b9) | 0;
    return mix(this.state) >>> 0;
  }

  /** A whole number from 0 to `bound - 1`. */
  below(bound: number): number {
    return Math.floor((this.next() / 0x1_0000_0000) * bound);
  }

  /** A number from 0 (inclusive) to 1 (exclusive). */
  fraction(): number {
    return this.next() / 0x1_0000_0000;
  }
}

export function mix(value: number): number {
  let z = value | 0;
  z = Math.imul(z ^ (z >>> 16), 0x21f0aaad);
  z = Math.imul(z ^ (z >>> 15), 0x735a2d97);
  return z ^ (z >>> 15);
}
