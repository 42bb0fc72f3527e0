/**
 * Uploaded files as the server runs them: the storage `--files` chose, the endpoints (routes.ts)
 * and the background sweep (sweep.ts), started and stopped with the server.
 */
import type { Router } from 'express';
import type { RecordService } from '../commands/types.ts';
import type { Callers } from '../http/callers.ts';
import type { FileReading } from './budget.ts';
import { createFilesRouter } from './routes.ts';
import { openFileStorage, type FileStorage, type FileStorageChoice } from './storage.ts';
import { startFileSweeper, type FileSweeper } from './sweep.ts';
import type { UploadLimits } from './upload.ts';

/** `--max-upload`'s default: 50 MB. */
export const DEFAULT_MAX_UPLOAD_BYTES = 50 * 1024 * 1024;

export interface Files {
  readonly storage: FileStorage;
  /** The storage with agents' daily budget: what the endpoints and MCP read files through. */
  readonly reading: FileReading;
  readonly limits: UploadLimits;
  readonly router: Router;
  readonly sweeper: FileSweeper;
  stop(): Promise<void>;
}

export async function startFiles(options: {
  readonly service: RecordService;
  readonly callers: Callers;
  readonly storage: FileStorageChoice;
  readonly limits: UploadLimits;
  readonly agentBytesPerDay: number;
  readonly log: (line: string) => void;
  readonly logError: (error: unknown) => void;
}): Promise<Files> {
  const { service } = options;
  const storage = await openFileStorage(options.storage, service.db);
  const reading: FileReading = { storage, agentBytesPerDay: options.agentBytesPerDay };
  const router = createFilesRouter({ service, callers: options.callers, reading, limits: options.limits, clock: service.clock });
  const sweeper = startFileSweeper({ service, storage, clock: service.clock, log: options.log, logError: options.logError });
  return { storage, reading, limits: options.limits, router, sweeper, stop: () => sweeper.stop() };
}
