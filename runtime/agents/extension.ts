/** The agent side as a server extension: its tables, its command hooks and its routes. */
import type { ServerExtension } from '../server.ts';
import { ensureAuditTables } from './audit.ts';
import { agentHooks } from './hooks.ts';
import { ensureMaskTables } from './masking.ts';
import { ensurePlanTables } from './plans.ts';
import { createAgentRouter } from './routes.ts';

export const agentExtension: ServerExtension = {
  name: 'agents',
  systemTables: [ensureMaskTables, ensurePlanTables, ensureAuditTables],
  hooks: () => agentHooks,
  routes: (service) => ({ api: [createAgentRouter(service)] }),
};
