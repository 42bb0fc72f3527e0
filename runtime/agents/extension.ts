/** The agent side's endpoints as a server extension: approval plans and the audit trail. */
import type { ServerExtension } from '../extension.ts';
import { createAgentRouter } from './routes.ts';

export const agentExtension: ServerExtension = {
  name: 'agents',
  routes: (service, { callers }) => ({ api: [createAgentRouter(service, callers)] }),
};
