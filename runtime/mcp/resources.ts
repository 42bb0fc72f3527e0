/**
 * Files as MCP resources, for agents: `resources/list` with `{ "model", "id" }` (an extension of
 * the method's params) lists the files of that record the agent reads — the record read through
 * the command path (`<model>.get`: its rights, masking and audit), so a personal file field,
 * which the agent sees as a token, and a withheld one list nothing; without a record, nothing.
 * `resources/read` of `rmsgen://files/<id>` returns the content as a blob where the agent may
 * download the file (files/access.ts, as `GET /api/files/<id>`), audited as a download, and
 * spends the agent token's daily budget of file bytes (files/budget.ts). Each message counts
 * against the agent's rate limit like any other (router.ts).
 */
import { ErrorCode, type ListResourcesResult, type ReadResourceResult, type Resource } from '@modelcontextprotocol/sdk/types.js';
import { buffer } from 'node:stream/consumers';
import type { FileRef } from '../api-shapes.ts';
import type { Caller } from '../caller.ts';
import { executeCommand } from '../commands/pipeline.ts';
import type { RecordService } from '../commands/types.ts';
import { HttpError } from '../errors.ts';
import { auditDownload, readableHolder } from '../files/access.ts';
import { sizeInWords, sizeOverInWords } from '../files/media-types.ts';
import { OVER_FILE_BUDGET, spendFileBudget, type FileReading } from '../files/budget.ts';
import { findFile } from '../files/store.ts';
import type { FieldMeta } from '../registry.ts';

export const FILE_URI_PREFIX = 'rmsgen://files/';

/** The largest file `resources/read` returns (base64 in one JSON answer); larger ones are downloaded over HTTP. */
export const MAX_RESOURCE_BYTES = 8 * 1024 * 1024;

/** Thrown as JSON-RPC errors by tool-server.ts. */
export class ResourceError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

const notFound = (uri: string) => new ResourceError(ErrorCode.InvalidParams, `Resource not found: ${uri}`);

function asResource(file: FileRef, description: string): Resource {
  return { uri: `${FILE_URI_PREFIX}${file.id}`, name: file.name, mimeType: file.type, size: file.size, description };
}

function filesOf(value: unknown): FileRef[] {
  const isFile = (item: unknown): item is FileRef => typeof item === 'object' && item !== null && typeof (item as FileRef).sha256 === 'string';
  if (Array.isArray(value)) return value.filter(isFile);
  return isFile(value) ? [value] : [];
}

export async function listResources(service: RecordService, caller: Caller, params: Readonly<Record<string, unknown>>): Promise<ListResourcesResult> {
  const { model, id } = params;
  if (model === undefined && id === undefined) return { resources: [] };
  if (typeof model !== 'string' || typeof id !== 'string') throw new ResourceError(ErrorCode.InvalidParams, 'Invalid params: resources/list takes model and id, the record whose files to list');
  const compiled = service.models.get(model);
  let value: Record<string, unknown>;
  try {
    const outcome = await executeCommand(service, caller, `${model}.get`, { id });
    value = (outcome.body as { value: Record<string, unknown> }).value;
  } catch (error) {
    if (error instanceof HttpError && error.status < 500) throw new ResourceError(ErrorCode.InvalidParams, error.status === 404 ? `Unknown model: ${model}` : error.message);
    throw error;
  }
  const resources: Resource[] = [];
  const add = (fields: readonly FieldMeta[], holder: Record<string, unknown>, where: string) => {
    for (const field of fields) if (field.kind === 'file') for (const file of filesOf(holder[field.name])) resources.push(asResource(file, `${where}.${field.name}`));
  };
  add(compiled!.meta.fields, value, `${model} ${id}`);
  for (const [name, list] of compiled!.lines) {
    for (const line of (value[name] as Record<string, unknown>[] | undefined) ?? []) add(list.meta.fields, line, `${model} ${id} ${name}`);
  }
  return { resources };
}

export async function readResource(service: RecordService, reading: FileReading, caller: Caller, params: Readonly<Record<string, unknown>>): Promise<ReadResourceResult> {
  const uri = params.uri;
  if (typeof uri !== 'string') throw new ResourceError(ErrorCode.InvalidParams, 'Invalid params: resources/read needs params.uri');
  if (!uri.startsWith(FILE_URI_PREFIX)) throw notFound(uri);
  const fileId = uri.slice(FILE_URI_PREFIX.length);
  const file = await findFile(service.db, fileId);
  const holder = file && (await readableHolder(service, caller, fileId));
  if (!file || !holder) throw notFound(uri);
  if (file.size > MAX_RESOURCE_BYTES) {
    throw new ResourceError(ErrorCode.InvalidParams, `${file.name} is ${sizeOverInWords(file.size, MAX_RESOURCE_BYTES)}, more than a resource read returns (${sizeInWords(MAX_RESOURCE_BYTES)}): download it with GET /api/files/${file.id}`);
  }
  if (caller.kind === 'agent' && !(await spendFileBudget(service.db, caller.tokenId, service.clock.now(), file.size, reading.agentBytesPerDay))) {
    throw new ResourceError(ErrorCode.InvalidRequest, OVER_FILE_BUDGET);
  }
  await auditDownload(service.db, caller, file.id, holder);
  const bytes = await buffer(reading.storage.read(file.sha256, 0, file.size - 1));
  return { contents: [{ uri, mimeType: file.type, blob: bytes.toString('base64') }] };
}
