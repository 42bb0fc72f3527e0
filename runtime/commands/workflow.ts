/**
 * The workflow rule of actions, once: an action runs from the states it names (`from`) and moves
 * its governed field to `to`. Preparing an update of a governed field finds the action that makes
 * the move; running an action (or that update) checks the record's state again, in the write's
 * transaction.
 */
import { badRequest } from '../errors.ts';
import type { ActionMeta, ModelMeta } from '../registry.ts';

/** Whether the action may run on a record whose governed field holds `state`. */
export function actionRunsFrom(action: ActionMeta, state: unknown): boolean {
  return typeof state === 'string' && action.from.includes(state);
}

/** 400 unless the record (every field, as stored) is in a state the action runs from. */
export function checkActionFrom(model: ModelMeta, action: ActionMeta, record: Readonly<Record<string, unknown>>): void {
  const state = record[action.field];
  if (!actionRunsFrom(action, state)) {
    throw badRequest(`${model.name}.${action.field} is ${String(state ?? 'empty')}; ${action.name} needs ${action.from.join(' or ')}`);
  }
}

/** The action, among those `allowed`, that moves `field` from `from` to `to`; 400 when there is none. */
export function actionMoving(model: ModelMeta, field: string, from: unknown, to: string, allowed: (action: string) => boolean): ActionMeta {
  const action = model.actions.find((candidate) => candidate.field === field && candidate.to === to && actionRunsFrom(candidate, from) && allowed(candidate.name));
  if (!action) throw badRequest(`${model.name}.${field} cannot move from ${String(from)} to ${to}`);
  return action;
}
