/** `GET /api/meta`: what the caller may see of the service. */

import type { ActionSet, FieldDefault, FieldKind } from './values.ts';

/** A field the caller reads. */
export interface FieldInfo {
  readonly name: string;
  readonly kind: FieldKind;
  readonly label: string;
  readonly description: string;
  readonly required: boolean;
  readonly personal: boolean;
  /** The caller sees this field's values as masking tokens (agents, personal fields). */
  readonly masked: boolean;
  /** A select changed only through actions. */
  readonly governed: boolean;
  /** Options of a select, in order. */
  readonly options?: readonly string[];
  /** Target model of a ref. */
  readonly target?: string;
  /** A money field's currency (ISO 4217, e.g. `EUR`), from the field or its module; absent: none. */
  readonly currency?: string;
  /** A decimal's count of decimals (0–6). */
  readonly scale?: number;
  /** The least and most value (number, decimal, money in minor units; date and datetime as their strings). */
  readonly min?: number | string;
  readonly max?: number | string;
  /** Text kinds: the most characters. */
  readonly length?: number;
  /** Text kinds: a regular expression the whole value must match. */
  readonly pattern?: string;
  /** A file field holding a list of files. */
  readonly multiple?: boolean;
  /** A file field's media types (`image/*` a family); absent: any. */
  readonly accept?: readonly string[];
  /** A file field's largest file in bytes; absent: the server's limit. */
  readonly maxSize?: number;
  /** The value a create gives the field when the input has none. */
  readonly default?: FieldDefault;
  /** Worked out from the record on every write: callers never write it. */
  readonly computed: boolean;
  /** The caller may write it (not computed, and its role among the field's writers). */
  readonly writable: boolean;
}

/** A record's line list (`lines:` of its model): rows it owns, in order, written only with it. */
export interface LineListInfo {
  readonly name: string;
  readonly label: string;
  readonly description: string;
  /** Fewest and most lines a record has. */
  readonly min: number;
  readonly max: number;
  /** The line fields the caller reads. */
  readonly fields: readonly FieldInfo[];
  /** `<model>.<lines>.<field>` of the line fields withheld from the caller. */
  readonly denied: readonly string[];
}

/** A rule of a model: the record as it will be must pass `check` (run on the server), else the message. */
export interface RuleInfo {
  readonly fields: readonly string[];
  readonly message: string;
}

/** A workflow action the caller may run. */
export interface ActionInfo {
  readonly name: string;
  readonly description: string;
  /** The governed select field the action moves. */
  readonly field: string;
  readonly from: readonly string[];
  readonly to: string;
  /** Fields the caller must give with the action. */
  readonly required: readonly string[];
  readonly needs_approval: boolean;
  /** What the action takes besides the record's id: each input, required or not; `field` marks one named like a field, which it sets when given. */
  readonly inputs: readonly (FieldInfo & { readonly field: boolean })[];
  /** Fields the action sets when it runs. */
  readonly set: Readonly<Record<string, ActionSet>>;
}

/** A model the caller may use at least one command of. */
export interface ModelInfo {
  readonly name: string;
  readonly module: string;
  readonly label: string;
  readonly description: string;
  readonly title_field: string;
  /** Names of the commands the caller may use (`get`, `search`, …, action names). */
  readonly commands: readonly string[];
  /** `<model>.<field>` of the fields withheld from the caller. */
  readonly denied: readonly string[];
  readonly fields: readonly FieldInfo[];
  readonly actions: readonly ActionInfo[];
  /** The fields a list shows by default besides the title (the model's `list` hint), among those the caller reads; absent: no hint. */
  readonly list?: readonly string[];
  /** Its line lists, in declaration order. */
  readonly lines: readonly LineListInfo[];
  /** Its rules, which the server checks on every write. */
  readonly rules: readonly RuleInfo[];
  /** States of its governed field in which it cannot be changed (update, lines, delete); actions still run. */
  readonly locked_in?: { readonly field: string; readonly states: readonly string[] };
}

/** A module with at least one model the caller may see. */
export interface ModuleInfo {
  readonly name: string;
  readonly label: string;
  readonly description: string;
  /** Names of the module's models the caller may see. */
  readonly models: readonly string[];
}

export interface PersonCallerInfo {
  readonly kind: 'person';
  readonly username: string;
  readonly roles: readonly string[];
}

export interface AgentCallerInfo {
  readonly kind: 'agent';
  readonly label: string;
  readonly scopes: readonly string[];
  /** Username of the person who created the agent's token. */
  readonly creator: string;
}

export type CallerInfo = PersonCallerInfo | AgentCallerInfo;

/** What the service calls itself for people (`serve --name`, `--colour`, `--locale`). */
export interface ServiceInfo {
  /** Its name, in the web app's top bar and page titles; default `Records`. */
  readonly name: string;
  /** Its colour as `#rrggbb`, the web app's top bar; default `#1f2735`. */
  readonly colour: string;
  /** The BCP 47 locale the web app writes amounts and dates in; null: each reader's browser locale. */
  readonly locale: string | null;
}

/** Today's app when the service says nothing: "Records", its dark blue-grey bar, each reader's browser locale. */
export const DEFAULT_SERVICE_INFO: ServiceInfo = { name: 'Records', colour: '#1f2735', locale: null };

/** `GET /api/service`: answered without signing in (the sign-in page shows it). */
export type ServiceAnswer = ServiceInfo;

/** `GET /api/meta`. */
export interface MetaAnswer {
  readonly caller: CallerInfo;
  readonly modules: readonly ModuleInfo[];
  readonly models: readonly ModelInfo[];
  /** What the service calls itself (as `GET /api/service` answers). */
  readonly service?: ServiceInfo;
  /**
   * For a person: whether they may decide some agent's plan, i.e. may run a command an agent's
   * call is held for (one that needs approval, or an update that runs such an action). Without it
   * the approvals inbox stays empty. Absent for agents.
   */
  readonly decides_plans?: boolean;
  /**
   * For a person with `admin`: the service's own commands, which belong to no model
   * (`webhook.create`, …, `POST /api/webhook/<command>`, docs/integrations.md). Absent for
   * everyone else and for agents.
   */
  readonly service_commands?: readonly string[];
}

