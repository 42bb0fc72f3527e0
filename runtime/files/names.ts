/**
 * A file's name as the service keeps and shows it, from the client's `X-File-Name` (the rule
 * docs/api.md states): percent-decoded UTF-8 (raw UTF-8 bytes are read as such); only its last
 * path segment (after the last `/` or `\`); without control characters (NUL, C0, DEL, C1) and
 * the invisible characters that change how text reads (bidirectional marks, embeddings and
 * isolates, zero-width characters, the byte order mark); spaces and dots trimmed at the ends; at
 * most `MAX_NAME_CHARACTERS` characters, cutting the stem and keeping a short extension; `file`
 * when nothing is left. The name is never a path: content is stored by its hash.
 */

export const MAX_NAME_CHARACTERS = 200;
const MAX_EXTENSION_CHARACTERS = 16;
const DEFAULT_NAME = 'file';

// Controls; bidi marks, embeddings, overrides and isolates; zero-width space, joiners; BOM; line and paragraph separators.
const UNWANTED = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/gu;

export function fileName(header: string | string[] | undefined): string {
  const raw = Array.isArray(header) ? header[0] : header;
  if (raw === undefined) return DEFAULT_NAME;
  const decoded = decodeName(raw);
  const lastSegment = decoded.split(/[/\\]/).at(-1) ?? '';
  const cleaned = lastSegment.replace(UNWANTED, '').replace(/^[\s.]+|[\s.]+$/gu, '');
  const name = shortened(cleaned);
  return name === '' ? DEFAULT_NAME : name;
}

/** Node reads header bytes as Latin-1: percent-encoded UTF-8 is decoded, raw UTF-8 bytes re-read as UTF-8. */
function decodeName(raw: string): string {
  let text = raw;
  if (/[\u0080-\u00ff]/.test(text)) {
    const bytes = Buffer.from(text, 'latin1');
    const utf8 = bytes.toString('utf8');
    if (!utf8.includes('\ufffd')) text = utf8;
  }
  if (text.includes('%')) {
    try {
      text = decodeURIComponent(text);
    } catch {
      // Not percent-encoding after all: the name as sent.
    }
  }
  return text;
}

function shortened(name: string): string {
  const characters = [...name];
  if (characters.length <= MAX_NAME_CHARACTERS) return name;
  const dot = name.lastIndexOf('.');
  const extension = dot > 0 ? [...name.slice(dot)] : [];
  const keep = extension.length > 1 && extension.length <= MAX_EXTENSION_CHARACTERS ? extension : [];
  return characters.slice(0, MAX_NAME_CHARACTERS - keep.length).join('').replace(/[\s.]+$/u, '') + keep.join('');
}
