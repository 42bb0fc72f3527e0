/**
 * Which subscriptions an event goes to, and what its role sees of it: rules shared by the outbox
 * (which makes an event's deliveries in the write's transaction) and the worker (which builds
 * what is sent).
 */
import type { PersonCaller } from '../caller.ts';
import type { Registry } from '../registry.ts';
import { rightsOf, type ModelRights } from '../rights.ts';
import type { Webhook } from './store.ts';

/** What a role sees of a model, as a person with only that role; null: it may not read the model's records. */
export type RoleView = { readonly caller: PersonCaller; readonly rights: ModelRights } | null;

export function roleViewOf(registry: Registry, role: string, model: string): RoleView {
  const caller: PersonCaller = { kind: 'person', userId: `webhook-role:${role}`, username: `webhook-role:${role}`, roles: [role], tokenId: '' };
  const rights = rightsOf(registry, caller);
  return rights.commands.has(`${model}.get`) ? { caller, rights: rights.models[model]! } : null;
}

/** The changed names the role reads: its readable fields, and line lists it reads a field of. */
export function visibleChanges(rights: ModelRights, changes: readonly string[]): string[] {
  return changes.filter((name) => rights.readableNames.has(name) || (rights.lines[name]?.readable.length ?? 0) > 0);
}

/**
 * Whether the subscription is sent the event: its models and commands, and its role reads the
 * model and at least one changed field (a change of nothing it reads does not exist for it, as in
 * a record's history). Asked when the event is written, and again when a delivery is sent, of the
 * subscription as it is then. `view`: the role's view of the event's model, when the caller has it.
 */
export function wantsEvent(
  registry: Registry,
  webhook: Webhook,
  event: { readonly model: string; readonly command: string; readonly changes: readonly string[] },
  view: RoleView = roleViewOf(registry, webhook.asRole, event.model),
): boolean {
  if (webhook.models && !webhook.models.includes(event.model)) return false;
  const command = event.command.slice(event.command.lastIndexOf('.') + 1);
  if (webhook.commands && !webhook.commands.includes(command)) return false;
  return view !== null && visibleChanges(view.rights, event.changes).length > 0;
}
