/** Record history (`<model>.history`, `<model>.revert`) and approval plans. */

import type { RecordValue } from './values.ts';

/** One change of a record, as `<model>.history` lists it (the value of that command is a `SearchAnswer` of these). */
export interface HistoryEntryInfo {
  readonly change_id: string;
  /** ISO-8601 UTC with milliseconds. */
  readonly at: string;
  /** The command that made the change, e.g. `lead.update`. */
  readonly command: string;
  /** Who: a person, or an agent (its label) and the person who made its token. For an approved plan, the agent that proposed it. */
  readonly by: { readonly kind: 'person' | 'agent'; readonly username: string; readonly agent_label: string | null };
  /** The approved plan the change came from, or null. */
  readonly plan_id: string | null;
  /** On a revert: the change it put back. */
  readonly reverts?: string;
  /** A record's change by a bulk command: the batch its other records' changes share. */
  readonly batch_id?: string;
  /**
   * Field → what it was and became (null for empty): every field a create set, every field of a
   * delete, what an update or action changed; only fields the caller reads. A line list → its
   * lines added, removed and changed. A personal field whose values were erased → `{"erased": true}`
   * (a line's erased field holds it too).
   */
  readonly changes: Readonly<Record<string, FieldChangeInfo | LinesChangeInfo | ErasedChangeInfo>>;
  /** An action's inputs that are not fields of the record, as given. */
  readonly inputs?: Readonly<Record<string, unknown>>;
}

/** What a field was and became. */
export interface FieldChangeInfo {
  readonly from: unknown;
  readonly to: unknown;
}

/** Where an erased personal value was (`<model>.erase`): in history, audit inputs and plans. */
export interface ErasedChangeInfo {
  readonly erased: true;
}

/**
 * The value of `<model>.erase`: the record, and where its personal values were taken out (counts
 * of rows changed).
 */
export interface ErasureInfo {
  readonly id: string;
  /** The personal fields emptied on the record (`<field>`; a line's `<lines>.<field>`), in declaration order. */
  readonly fields: readonly string[];
  readonly history_entries: number;
  readonly audit_rows: number;
  readonly plans: number;
  /** Pending plans that carried the values: they cannot run as proposed, and are rejected. */
  readonly plans_rejected: number;
  /** Masking tokens of the values (any agent's), emptied. */
  readonly mask_tokens: number;
  /** Agents' masking bindings of the record and its lines, removed. */
  readonly bindings: number;
}

/**
 * What a change did to a line list: whole lines added and removed, the fields changed of the
 * others, and the lines' ids in their order before and after when the change moved lines (or
 * removed one from before a kept one).
 */
export interface LinesChangeInfo {
  readonly added: readonly RecordValue[];
  readonly removed: readonly RecordValue[];
  readonly changed: readonly { readonly id: string; readonly changes: Readonly<Record<string, FieldChangeInfo>> }[];
  readonly order?: { readonly from: readonly string[]; readonly to: readonly string[] };
}

// ---------------------------------------------------------------------------------------------
// Approval plans

export type PlanStatus = 'pending' | 'approved' | 'rejected' | 'failed';

/** A plan as the caller sees it (its input masked for agents). */
export interface PlanInfo {
  readonly plan_id: string;
  readonly command: string;
  readonly record_id: string | null;
  readonly input: Readonly<Record<string, unknown>> | null;
  readonly status: PlanStatus;
  readonly created: string;
  /** The agent token that proposed it. */
  readonly agent: { readonly id: string; readonly label: string };
  /** Username of the person who created that token, when known. */
  readonly creator: string | null;
  readonly decided_at: string | null;
  /** Username of the person who decided it, when known. */
  readonly decided_by: string | null;
  /** Why the command failed when it was approved. */
  readonly error: string | null;
}

/** `GET /api/plans`. */
export interface PlansAnswer {
  readonly plans: readonly PlanInfo[];
}

/** `GET /api/plans/<plan>`. */
export interface PlanAnswer {
  readonly plan: PlanInfo;
}

/** `POST /api/reject/<plan>`. (`POST /api/approve/<plan>` answers the command's `CommandEnvelope`.) */
export interface RejectAnswer {
  readonly plan_id: string;
  readonly status: 'rejected';
}


/**
 * The value of a bulk command (`create_many`, `update_many`, `delete_many`): the records it
 * changed — or, with `dry_run`, would change — in order, each with its fields' `{from, to}` (only
 * fields the caller reads). `batch_id` names their history entries' batch; null in a dry run.
 */
export interface BatchAnswer {
  readonly batch_id: string | null;
  readonly count: number;
  readonly ids: readonly string[];
  readonly changes: readonly { readonly id: string; readonly changes: Readonly<Record<string, FieldChangeInfo>> }[];
}
