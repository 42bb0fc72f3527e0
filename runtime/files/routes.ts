/**
 * The files' HTTP endpoints, mounted before `/api`'s JSON parsing (an upload's body is the file):
 *
 * - `POST /api/files`: the raw body, its `Content-Type` and `X-File-Name` → `201 {"id", "name",
 *   "size", "type", "sha256"}` (upload.ts). Agents count it as a write.
 * - `GET /api/files/<id>`: the content, to a caller that may read a field of a record holding the
 *   file (access.ts), or to a person who may decide a pending plan that would attach it
 *   (plan-files.ts); anyone else, and an unknown id, 404 `file not found`. As an attachment
 *   (inline only for PNG, JPEG, GIF, WebP and PDF), always with `Content-Security-Policy: sandbox`
 *   and `nosniff`; `ETag` the SHA-256; one byte range (`Range: bytes=…`). Each download is audited.
 */
import type { IncomingMessage } from 'node:http';
import { pipeline } from 'node:stream/promises';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import type { Clock } from '../clock.ts';
import type { RecordService } from '../commands/types.ts';
import { HttpError, notFound as noSuchCommand } from '../errors.ts';
import { kindTraits } from '../command-kinds.ts';
import type { FieldMeta } from '../registry.ts';
import { rightsOf, type CallerRights } from '../rights.ts';
import type { Callers } from '../http/callers.ts';
import { sendJson } from '../http/send.ts';
import { auditDownload, readableHolder } from './access.ts';
import { OVER_FILE_BUDGET, spendFileBudget, type FileReading } from './budget.ts';
import { pendingPlanHolding } from './plan-files.ts';
import { findFile } from './store.ts';
import { receiveUpload, type UploadLimits } from './upload.ts';
import { youngGarbageCollector } from './young-garbage.ts';

export const FILES_PATH = '/api/files';

/** Types a browser may show in the page: raster images and PDF. SVG and HTML (which run scripts) never. */
const INLINE_TYPES: ReadonlySet<string> = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'application/pdf']);

export interface FilesRouteOptions {
  readonly service: RecordService;
  readonly callers: Callers;
  readonly reading: FileReading;
  readonly limits: UploadLimits;
  readonly clock: Clock;
}

const notFound = () => new HttpError(404, 'file not found');

/** Whether the request is an upload whose Content-Length already puts it over the limit (answered 413 before its body is sent). */
export function isOversizedUpload(req: IncomingMessage, limits: UploadLimits): boolean {
  const length = req.headers['content-length'];
  return req.method === 'POST' && (req.url ?? '').split('?')[0] === FILES_PATH && length !== undefined && Number(length) > limits.maxBytes;
}

export function createFilesRouter(options: FilesRouteOptions): Router {
  const { service, callers, reading, limits, clock } = options;
  const { storage } = reading;
  const router = express.Router({ caseSensitive: true, strict: false });

  router.post(FILES_PATH, async function upload(req: Request, res: Response, next: NextFunction) {
    try {
      const caller = await callers.of(req.headers.authorization, res, 'files.upload', { requests: 1, writes: 1 });
      // An upload is for a file field: a caller that may write none has no use for one (as a
      // command it may not use, 404), and an agent's scopes bound what it may store.
      if (!mayWriteAFile(rightsOf(service.registry, caller), service)) throw noSuchCommand();
      const file = await receiveUpload(req, caller, service.db, storage, limits, clock);
      sendJson(res, 201, file);
    } catch (error) {
      next(error);
    }
  });

  router.get(`${FILES_PATH}/:id`, async function download(req: Request, res: Response, next: NextFunction) {
    try {
      const caller = await callers.of(req.headers.authorization, res, 'files.download');
      const id = String(req.params.id);
      const file = await findFile(service.db, id);
      if (!file) throw notFound();
      // A record the caller may read holds it, or else a pending plan the caller may decide would attach it.
      const holder = (await readableHolder(service, caller, id)) ?? (await pendingPlanHolding(service, caller, file));
      if (!holder) throw notFound();
      const etag = `"${file.sha256}"`;
      res.setHeader('ETag', etag);
      res.setHeader('Cache-Control', 'private, no-cache');
      res.setHeader('Content-Security-Policy', 'sandbox');
      res.setHeader('X-Content-Type-Options', 'nosniff');
      res.setHeader('Accept-Ranges', 'bytes');
      res.setHeader('Content-Type', file.type);
      res.setHeader('Content-Disposition', contentDisposition(INLINE_TYPES.has(file.type) ? 'inline' : 'attachment', file.name));
      if (noneMatch(req.headers['if-none-match'], etag)) {
        res.status(304).end();
        return;
      }
      const range = byteRange(req.headers.range, file.size);
      if (range === 'unsatisfiable') {
        res.setHeader('Content-Range', `bytes */${file.size}`);
        throw new HttpError(416, 'range not satisfiable');
      }
      const [start, end] = range ?? [0, file.size - 1];
      // What sends no content (HEAD, 304, 416) is neither a download nor a spend of an agent's bytes.
      if (req.method !== 'HEAD') {
        if (caller.kind === 'agent' && !(await spendFileBudget(service.db, caller.tokenId, clock.now(), end - start + 1, reading.agentBytesPerDay))) throw new HttpError(429, OVER_FILE_BUDGET);
        await auditDownload(service.db, caller, id, holder);
      }
      res.status(range ? 206 : 200);
      if (range) res.setHeader('Content-Range', `bytes ${start}-${end}/${file.size}`);
      res.setHeader('Content-Length', String(end - start + 1));
      if (req.method === 'HEAD') {
        res.end();
        return;
      }
      const content = storage.read(file.sha256, start, end);
      const garbage = youngGarbageCollector();
      content.on('data', (chunk: Buffer) => garbage.add(chunk.length));
      await pipeline(content, res);
    } catch (error) {
      next(error);
    }
  });

  return router;
}

/** `attachment; filename="<ASCII stand-in>"; filename*=UTF-8''<the name, percent-encoded>` (RFC 6266). */
export function contentDisposition(kind: 'inline' | 'attachment', name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\%]/g, '_');
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`;
}

/**
 * One range of `Range: bytes=<first>-<last>`, `bytes=<first>-` or `bytes=-<suffix>`, within the
 * file; none (the whole file) when there is no header, or one of another unit, several ranges, or
 * one that is invalid (a last before its first: RFC 9110 14.2 ignores the header then).
 */
export function byteRange(header: string | undefined, size: number): [number, number] | 'unsatisfiable' | undefined {
  if (header === undefined) return undefined;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '')) return undefined;
  if (match[1] === '') {
    const suffix = Number(match[2]);
    if (suffix === 0) return 'unsatisfiable';
    return [Math.max(0, size - suffix), size - 1];
  }
  const start = Number(match[1]);
  if (match[2] !== '' && Number(match[2]) < start) return undefined;
  if (start >= size) return 'unsatisfiable';
  return [start, match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1)];
}

/**
 * Whether `If-None-Match` names the file's entity tag: `*`, or a list of tags compared weakly
 * (`W/"…"` matches `"…"`), as RFC 9110 13.1.2 asks of it.
 */
function noneMatch(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}

/** Whether the caller may run a command that takes fields on a model with a file field it may write (of the record or of its lines). */
function mayWriteAFile(rights: CallerRights, service: RecordService): boolean {
  const writesFile = (fields: readonly FieldMeta[], writable: ReadonlySet<string>) => fields.some((field) => field.kind === 'file' && writable.has(field.name));
  for (const id of rights.commands) {
    const command = service.registry.commands[id];
    if (!command || !kindTraits(command.kind).takesFields) continue;
    const model = rights.models[command.model];
    if (!model) continue;
    if (writesFile(model.model.fields, model.writableNames)) return true;
    if (Object.values(model.lines).some((line) => writesFile(line.list.fields, line.writableNames))) return true;
  }
  return false;
}
