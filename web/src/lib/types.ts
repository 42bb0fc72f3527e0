/**
 * The shapes the app reads from the API. They are declared once, with the runtime that sends them
 * (runtime/api-shapes.ts), so a renamed field fails to compile here too; this file re-exports them
 * for the app (with the filter operators) and adds the one shape only the app has.
 */
import type { MetaAnswer, PersonCallerInfo } from '../../../runtime/api-shapes.ts';

export type {
  FileRef,
  ActionInfo,
  ActionSet,
  AgentTokenInfo,
  AgentTokensAnswer,
  ApprovalRequiredAnswer,
  AuditAnswer,
  AuditTrailRow,
  CommandEnvelope,
  CommandInfo,
  CommandsAnswer,
  DryRunAnswer,
  FieldChangeInfo,
  FieldDefault,
  FieldInfo,
  FieldKind,
  FilterCondition,
  FilterOperator,
  HistoryEntryInfo,
  IssuedAgentToken,
  LineListInfo,
  LinesChangeInfo,
  LoginAnswer,
  ModelInfo,
  ModuleInfo,
  OrderKey,
  PlanInfo,
  PlansAnswer,
  PlanStatus,
  RateLimitsInfo,
  RecordValue,
  RuleInfo,
  SearchAnswer,
  ServiceAnswer,
  ServiceInfo,
  WebhookDeliveryInfo,
  WebhookInfo,
} from '../../../runtime/api-shapes.ts';
// The values among them: plain constants, so the bundle gains a few bytes, not the runtime.
export { DEFAULT_SERVICE_INFO, FILTER_OPERATORS, ordersBy } from '../../../runtime/api-shapes.ts';

/**
 * `GET /api/meta` as the app sees it: only people sign in to the app (an agent token cannot), so
 * its caller is always a person.
 */
export interface Meta extends Omit<MetaAnswer, 'caller'> {
  readonly caller: PersonCallerInfo;
}
