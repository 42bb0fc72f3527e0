/**
 * The command path: what REST, MCP and the approval step call.
 */
export { executeCommand, runPrepared, resolveCommand, prepareCommand } from './pipeline.ts';
export { createCommandService, defaultHooks } from './service.ts';
export type { CommandServiceOptions } from './service.ts';
export { validateInput, isPlainObject } from './validate-input.ts';
export { readerFor, recordNotFound } from './handlers.ts';
export type {
  AuditEvent,
  CommandContext,
  CommandEnvelope,
  CommandHooks,
  CommandOutcome,
  CommandService,
  CompiledCommand,
  CompiledModel,
  PreparedCommand,
  RecordValue,
} from './types.ts';
