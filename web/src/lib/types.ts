/** The shapes the app reads from the API (GET /api/meta, plans, tokens, audit). */

export type FieldKind = 'text' | 'longtext' | 'number' | 'money' | 'date' | 'bool' | 'select' | 'ref';

export interface FieldInfo {
  readonly name: string;
  readonly kind: FieldKind;
  readonly label: string;
  readonly description: string;
  readonly required: boolean;
  readonly personal: boolean;
  readonly masked: boolean;
  readonly governed: boolean;
  readonly options?: readonly string[];
  readonly target?: string;
}

export interface ActionInfo {
  readonly name: string;
  readonly description: string;
  readonly field: string;
  readonly from: readonly string[];
  readonly to: string;
  readonly required: readonly string[];
  readonly needs_approval: boolean;
}

export interface ModelInfo {
  readonly name: string;
  readonly module: string;
  readonly label: string;
  readonly description: string;
  readonly title_field: string;
  readonly commands: readonly string[];
  readonly denied?: readonly string[];
  readonly fields: readonly FieldInfo[];
  readonly actions: readonly ActionInfo[];
}

export interface ModuleInfo {
  readonly name: string;
  readonly label: string;
  readonly description: string;
  readonly models: readonly string[];
}

export interface CallerInfo {
  readonly kind: 'person' | 'agent';
  readonly username: string;
  readonly roles: readonly string[];
}

export interface Meta {
  readonly caller: CallerInfo;
  readonly modules: readonly ModuleInfo[];
  readonly models: readonly ModelInfo[];
}

export type RecordValue = { readonly id: string } & Readonly<Record<string, unknown>>;

export type FilterOp = 'eq' | 'ne' | 'contains' | 'in' | 'gt' | 'gte' | 'lt' | 'lte' | 'is_null';

export interface Filter {
  readonly field: string;
  readonly op: FilterOp;
  readonly value?: unknown;
}

export interface Order {
  readonly field: string;
  readonly dir: 'asc' | 'desc';
}

export interface CommandInfo {
  readonly id: string;
  readonly description: string;
  readonly needs_approval: boolean;
}

export type PlanStatus = 'pending' | 'approved' | 'rejected' | 'failed';

export interface Plan {
  readonly plan_id: string;
  readonly command: string;
  readonly record_id: string | null;
  readonly input: Readonly<Record<string, unknown>> | null;
  readonly status: PlanStatus;
  readonly created: string;
  readonly agent: { readonly id: string; readonly label: string } | null;
  readonly creator: string | null;
  readonly decided_at: string | null;
  readonly decided_by: string | null;
  readonly error: string | null;
}

export interface AgentToken {
  readonly id: string;
  readonly label: string;
  readonly scopes: readonly string[];
  readonly created: string;
  readonly expires: string;
  readonly last_used: string | null;
  readonly revoked: string | null | boolean;
  readonly status?: 'active' | 'expired' | 'revoked';
}

export interface IssuedToken {
  readonly token: string;
  readonly id?: string;
  readonly expires?: string;
}

export interface AuditEntry {
  readonly id: string;
  readonly at: string;
  readonly actor: 'person' | 'agent';
  readonly username: string | null;
  readonly agent_label: string | null;
  readonly command: string;
  readonly record_id: string | null;
  readonly outcome: string;
  readonly plan_id: string | null;
  readonly error: string | null;
}
