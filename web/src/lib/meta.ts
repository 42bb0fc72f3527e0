/** What the signed-in person may see (GET /api/meta), shared with every page through a context. */
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { FieldInfo, Meta, ModelInfo } from './types.ts';

export interface AppMeta extends Meta {
  readonly model: (name: string) => ModelInfo | undefined;
  readonly isAdmin: boolean;
  /** Whether the person may decide some agent's plan (`decides_plans`; an older server: assumed so): the approvals inbox is theirs. */
  readonly decidesPlans: boolean;
  /** Whether the person may use some command, so has something to give an agent token (a token's scopes are among them). */
  readonly issuesTokens: boolean;
  /** Pending approvals, for the badge; null while unknown or when the inbox is unavailable. */
  readonly pendingCount: number | null;
  readonly refreshPending: () => void;
  /** The approvals inbox read the plans itself: its count, so the badge follows without another request. */
  readonly reportPending: (count: number) => void;
  /** Shows a short message in the page's status area (announced to screen readers). */
  readonly notify: (message: string, tone?: 'success' | 'error') => void;
}

export const MetaContext = createContext<AppMeta | null>(null);

export function useMeta(): AppMeta {
  const meta = useContext(MetaContext);
  if (!meta) throw new Error('useMeta outside the signed-in app');
  return meta;
}

export function withLookups(meta: Meta): Pick<AppMeta, 'model' | 'isAdmin' | 'decidesPlans' | 'issuesTokens'> {
  const byName = new Map(meta.models.map((model) => [model.name, model]));
  return {
    model: (name) => byName.get(name),
    isAdmin: meta.caller.roles.includes('admin'),
    decidesPlans: meta.decides_plans !== false,
    issuesTokens: meta.models.length > 0,
  };
}

export function can(model: ModelInfo | undefined, command: string): boolean {
  return model !== undefined && model.commands.includes(command);
}

export function fieldOf(model: ModelInfo, name: string): FieldInfo | undefined {
  return model.fields.find((field) => field.name === name);
}

/** The field that names a record, when the caller reads it. */
export function titleFieldOf(model: ModelInfo): FieldInfo | undefined {
  return fieldOf(model, model.title_field);
}

/** A record's name for people: its title field, else its id. */
export function recordTitle(model: ModelInfo, record: Readonly<Record<string, unknown>>): string {
  const title = record[model.title_field];
  if (typeof title === 'string' && title.trim() !== '') return title;
  if (typeof title === 'number') return String(title);
  return String(record.id ?? '');
}

/**
 * The locked state the record is in (`locked_in` of its model: `done`, `cancelled`), in which it
 * cannot be updated, have its lines changed or be deleted (its actions still run); null when it
 * can be changed.
 */
export function lockedState(model: ModelInfo, record: Readonly<Record<string, unknown>>): { readonly field: string; readonly state: string } | null {
  const locked = model.locked_in;
  if (!locked) return null;
  const state = record[locked.field];
  return typeof state === 'string' && locked.states.includes(state) ? { field: locked.field, state } : null;
}
