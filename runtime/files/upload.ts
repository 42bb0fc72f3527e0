/**
 * `POST /api/files`: the raw body streamed to a temporary file, its SHA-256 and size worked out on
 * the way (memory holds one chunk and the first bytes, whatever the size, and the chunks read are
 * freed as it goes: young-garbage.ts), refused with 413 as soon
 * as it passes the server's `--max-upload`, then its real type detected from its first bytes
 * (`file-type`) and compared with the declared `Content-Type` (415 when they differ), and only then
 * kept by its hash (storage.ts) and recorded (store.ts).
 */
import { createHash, randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { rm } from 'node:fs/promises';
import type { Knex } from 'knex';
import type { FileRef } from '../api-shapes.ts';
import type { Caller } from '../caller.ts';
import type { Clock } from '../clock.ts';
import { HttpError, badRequest } from '../errors.ts';
import { newId } from '../ids.ts';
import { essenceOf, sizeInWords } from './media-types.ts';
import { fileName } from './names.ts';
import { temporaryFile, type FileStorage } from './storage.ts';
import { drainRefusedBody } from '../http/body.ts';
import { youngGarbageCollector } from './young-garbage.ts';
import { deleteFileRow, fileRef, insertFile, uploaderKey } from './store.ts';

/** How many first bytes type detection reads (file-type's own sample size). */
const SAMPLE_BYTES = 4100;

/**
 * `file-type`, loaded with the first upload (about 50 ms of a start otherwise), and the types it
 * recognises by their bytes: declaring one of them for bytes that are not it is refused.
 */
let detector: Promise<{ readonly detect: (sample: Uint8Array) => Promise<string | undefined>; readonly detectable: ReadonlySet<string> }> | undefined;
function typeDetector() {
  detector ??= import('file-type').then(({ fileTypeFromBuffer, supportedMimeTypes }) => ({
    detect: async (sample: Uint8Array) => (await fileTypeFromBuffer(sample))?.mime,
    detectable: new Set<string>(supportedMimeTypes),
  }));
  return detector;
}

/** What a declared type that says nothing stands for. */
const UNKNOWN_TYPE = 'application/octet-stream';

/** A media type: `type/subtype`, the characters RFC 6838 allows. */
const MEDIA_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/;

export interface UploadLimits {
  /** `--max-upload`: the largest body, in bytes. */
  readonly maxBytes: number;
}

/**
 * Streams the request's body into storage and records the file; answers it as records hold it.
 * Refusals change nothing (the temporary file is removed): 413 over the limit, 415 when the
 * declared type is not a media type or not what the content is, 400 when empty.
 */
export async function receiveUpload(req: IncomingMessage, caller: Caller, db: Knex, storage: FileStorage, limits: UploadLimits, clock: Clock): Promise<FileRef> {
  const declared = declaredType(req.headers['content-type']);
  // Node joins a repeated header with ", ": two names would become one neither sender meant.
  if ((req.headersDistinct['x-file-name']?.length ?? 0) > 1) throw new HttpError(400, 'X-File-Name must be given once');
  const name = fileName(req.headers['x-file-name']);
  const length = req.headers['content-length'];
  if (length !== undefined && Number(length) > limits.maxBytes) {
    await drainRefusedBody(req, Number(length));
    throw tooLarge(limits);
  }

  const hash = createHash('sha256');
  const sample: Buffer[] = [];
  let sampled = 0;
  let size = 0;
  const garbage = youngGarbageCollector();
  const temp = temporaryFile(storage, `${randomUUID()}.part`);
  try {
    await new Promise<void>((resolve, reject) => {
      const fail = (error: unknown) => {
        req.unpipe(temp.stream);
        temp.stream.destroy();
        reject(error);
      };
      req.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > limits.maxBytes) {
          // Refused while streaming: the rest of the body is never read (the answer closes the connection).
          req.pause();
          fail(tooLarge(limits));
          return;
        }
        hash.update(chunk);
        garbage.add(chunk.length);
        if (sampled < SAMPLE_BYTES) {
          sample.push(chunk.subarray(0, SAMPLE_BYTES - sampled));
          sampled += Math.min(chunk.length, SAMPLE_BYTES - sampled);
        }
      });
      req.on('aborted', () => fail(new HttpError(400, 'the upload was cut off before its end')));
      req.on('error', fail);
      temp.stream.on('error', fail);
      temp.stream.on('finish', resolve);
      req.pipe(temp.stream);
    });
    if (size === 0) throw badRequest('the upload is empty: send the file as the request body');
    const { detect, detectable } = await typeDetector();
    const type = typeOf(declared, await detect(Buffer.concat(sample)), detectable);
    const sha256 = hash.digest('hex');
    const file = { id: newId(clock.now()), name, size, type, sha256, uploadedBy: uploaderKey(caller), uploadedAt: new Date(clock.now()).toISOString() };
    // The row before the content: a sweep removing the last other file of the same bytes then sees
    // this one and keeps them (storage.remove checks for a row as it removes), or removes them
    // before `keep` puts them back. No one knows the id before the answer, so none reads it between.
    await insertFile(db, file);
    try {
      await storage.keep(temp.path, sha256, size);
    } catch (error) {
      await deleteFileRow(db, file.id);
      throw error;
    }
    return fileRef(file);
  } finally {
    await rm(temp.path, { force: true });
  }
}

function tooLarge(limits: UploadLimits): HttpError {
  return new HttpError(413, `the upload is larger than this server takes (${sizeInWords(limits.maxBytes)})`);
}

/** The declared `Content-Type`, as its essence; none: `application/octet-stream`. */
function declaredType(header: string | undefined): string {
  if (header === undefined || header.trim() === '') return UNKNOWN_TYPE;
  const essence = essenceOf(header);
  if (!MEDIA_TYPE.test(essence)) throw new HttpError(415, `Content-Type ${JSON.stringify(header.slice(0, 100))} is not a media type`);
  // A form's encoding, not a file's type: the body would be stored with the form around it (or, from curl -d, without its line breaks).
  if (FORM_TYPES.has(essence)) throw new HttpError(415, `an upload is the file's bytes as the body, not a form (${essence}): send the file itself (curl --data-binary @file)`);
  return essence;
}

const FORM_TYPES: ReadonlySet<string> = new Set(['multipart/form-data', 'application/x-www-form-urlencoded']);

/**
 * The file's type: what its content is where its bytes say (a declared type other than that, or
 * than `application/octet-stream`, is refused), else the declared type — unless the declared type
 * is one whose bytes can be recognised, and these are not its.
 */
function typeOf(declared: string, detected: string | undefined, detectable: ReadonlySet<string>): string {
  if (detected !== undefined) {
    if (declared === UNKNOWN_TYPE || declared === detected) return detected;
    // XML's declaration starts every XML-based format (SVG, Atom …): the declared one says which.
    if (detected === 'application/xml' && (declared.endsWith('+xml') || declared === 'text/xml')) return declared;
    throw new HttpError(415, `the content is ${detected}, not ${declared} as declared`);
  }
  if (detectable.has(declared) && !TEXT_BASED.has(declared)) throw new HttpError(415, `the content is not ${declared} as declared`);
  return declared;
}

/** Detectable types whose content is text file-type may not recognise (XML without its declaration, calendars, cards, subtitles). */
const TEXT_BASED: ReadonlySet<string> = new Set(['application/xml', 'text/calendar', 'text/vcard', 'text/vtt']);
