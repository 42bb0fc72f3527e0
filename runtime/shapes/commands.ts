/** The answers of commands: the envelope, plans proposed, dry runs, pages, and the command catalogue. */

import type { RecordValue } from './values.ts';

/** An entry of the command catalogue. */
export interface CommandInfo {
  /** `<model>.<command>`, e.g. `lead.qualify`. */
  readonly id: string;
  readonly description: string;
  readonly needs_approval: boolean;
}

/** `GET /api/commands`. */
export interface CommandsAnswer {
  readonly commands: readonly CommandInfo[];
}

/** SPEC 4.2: the 200 answer of a command (`POST /api/<model>/<command>`), and of `POST /api/approve/<plan>`. */
export interface CommandEnvelope<Value = unknown> {
  /** `<model>.<field>` of the fields withheld from the caller. */
  readonly denied: readonly string[];
  readonly value: Value;
  /** Keyset paging (`list`/`search` with `after`): the `after` of the next page, when more rows follow. */
  readonly next?: string;
}

/** The 202 answer of a command the caller may only propose (SPEC 4.4). */
export interface ApprovalRequiredAnswer {
  readonly approval_required: true;
  readonly plan_id: string;
}

/**
 * `POST /api/<model>/<command>?dry_run=true`: what the call would answer, with nothing changed —
 * the envelope (a create's record carries an id that was never stored), or, for an agent's call
 * that needs approval, that it would be proposed.
 */
export type DryRunAnswer = ({ readonly dry_run: true } & CommandEnvelope) | { readonly dry_run: true; readonly approval_required: true };

/** The value of `search`: one page of records and how many match in all. */
export interface SearchAnswer<Row = RecordValue> {
  readonly rows: readonly Row[];
  readonly total: number;
}

