/**
 * A JSON value kept as the text the database holds, for an answer that only writes it out.
 *
 * A file field is stored as the JSON of its files (query/values.ts), and a person's `get` of a
 * record with ten files spent most of what it cost over one without on reading that text into
 * objects and writing them back out (profile of the server under wrk, µs per request: JSON.parse
 * of the column 10.6 and the larger JSON.stringify 6.2, of 46 more in all). When nothing but the
 * answer reads the value, the record holds a `StoredJson` instead, and `jsonText` writes its text
 * into the answer as it is.
 *
 * Any other serialisation still gets the value itself: outside `jsonText`, `toJSON` parses it.
 */
import { randomBytes } from 'node:crypto';

/** The texts `jsonText` is writing out, in the order JSON.stringify meets them; null outside it. */
let writing: string[] | null = null;

/** What `toJSON` answers inside `jsonText`: a string no value can hold without knowing this process's random part. */
const PLACEHOLDER = `\u0000stored-json:${randomBytes(16).toString('base64url')}`;
const PLACEHOLDER_JSON = JSON.stringify(PLACEHOLDER);

export class StoredJson {
  /** `text`: the JSON text as the database holds it, written by JSON.stringify (query/values.ts `toDb`). */
  constructor(readonly text: string) {}

  toJSON(): unknown {
    if (writing === null) return JSON.parse(this.text);
    writing.push(this.text);
    return PLACEHOLDER;
  }
}

/** JSON.stringify(value), with each `StoredJson` in it written as its stored text. */
export function jsonText(value: unknown): string {
  const texts: string[] = [];
  writing = texts;
  let text: string;
  try {
    text = JSON.stringify(value);
  } finally {
    writing = null;
  }
  if (texts.length === 0) return text;
  const parts = text.split(PLACEHOLDER_JSON);
  // Never expected: were the placeholder anywhere else, the values themselves are written instead.
  if (parts.length !== texts.length + 1) return JSON.stringify(value);
  let out = parts[0]!;
  for (let k = 0; k < texts.length; k++) out += texts[k]! + parts[k + 1]!;
  return out;
}
