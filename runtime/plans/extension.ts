/** The endpoints of approval plans and of the audit trail, as a server extension. */
import { createAuditRouter } from '../audit/routes.ts';
import type { ServerExtension } from '../extension.ts';
import { createPlanRouter } from './routes.ts';

export const plansAndAuditExtension: ServerExtension = {
  name: 'plans and audit',
  routes: (service, { callers }) => ({ api: [createPlanRouter(service, callers), createAuditRouter(service, callers)] }),
};
