/** Names a definition cannot take, because the service or the runtime already uses them. */
import { GENERATED_COMMANDS } from '../define.ts';

/** The built-in role that may use every command; no module grants it anything (its owner is the runtime's rights). */
export { ADMIN_ROLE } from '../../runtime/rights.ts';

/**
 * Model names the service's own endpoints use as the first segment under `/api/`, with the
 * route shown in the error. A model of that name would collide with `POST /api/<model>/<command>`.
 */
export const RESERVED_MODEL_NAMES: Readonly<Record<string, string>> = {
  auth: '/api/auth/…',
  approve: '/api/approve/…',
  reject: '/api/reject/…',
  plans: '/api/plans',
  commands: '/api/commands',
  meta: '/api/meta',
  audit: '/api/audit',
  webhook: '/api/webhook/…',
};

/** The runtime's system tables (`rms_schema`, `rms_people`, …) start with this; a model's table is named after the model. */
export const SYSTEM_TABLE_PREFIX = 'rms_';

/** The record id every model has. */
export const ID_FIELD = 'id';

/** Command names every model has, which its actions therefore cannot take. */
export const RESERVED_COMMAND_NAMES: readonly string[] = GENERATED_COMMANDS;
