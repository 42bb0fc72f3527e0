/**
 * The files a plan would attach. An agent's input holds file ids, in a file field (or a line's) of
 * the command's input, or of each part of a bulk command's (`create_many`'s records, `update_many`'s
 * set, `<action>_many`'s input):
 *
 * - a plan shows each as the file (`{"id", "name", "size", "type", "sha256"}`) where the plan's
 *   agent uploaded it or the viewer may read it, so that whoever decides sees what would be
 *   attached (`withPlanFiles`);
 * - a person who may decide a pending plan may download the files its agent uploaded that the
 *   plan names, so as to see what they approve (`pendingPlanHolding`): the one way to the content
 *   of an upload no record holds, ending with the plan's decision (files/access.ts has the others).
 */
import type { PlanInfo } from '../api-shapes.ts';
import type { Caller } from '../caller.ts';
import type { CompiledModel, RecordService } from '../commands/types.ts';
import { parseStoredCommand } from '../commands/types.ts';
import { takesValueParts, valueParts, withParts } from '../masking/value-parts.ts';
import { personMayDecide } from '../plans/decide.ts';
import { PLAN_TABLE, type PlanRow } from '../plans/store.ts';
import type { CommandKind } from '../command-kinds.ts';
import { FILE_ID, readableHolder } from './access.ts';
import { fileRef, findFiles, type StoredFile } from './store.ts';

/** What a plan's input gives a file: its id, and the field as downloads name it (`<field>`, `<lines>.<field>`). */
type FileVisitor = (id: string, field: string) => unknown;

/** The values of one record's input with each file id replaced by what `visit` makes of it. */
function mapRecordFiles(model: CompiledModel, values: Readonly<Record<string, unknown>>, visit: FileVisitor): Record<string, unknown> {
  const out: Record<string, unknown> = { ...values };
  const mapValue = (value: unknown, field: string) =>
    typeof value === 'string' ? visit(value, field) : Array.isArray(value) ? value.map((item) => (typeof item === 'string' ? visit(item, field) : item)) : value;
  for (const [name, value] of Object.entries(values)) {
    if (model.fields.get(name)?.kind === 'file') out[name] = mapValue(value, name);
    const list = model.lines.get(name);
    if (!list || !Array.isArray(value)) continue;
    out[name] = value.map((line: unknown) => {
      if (typeof line !== 'object' || line === null || Array.isArray(line)) return line;
      const copy: Record<string, unknown> = { ...(line as Record<string, unknown>) };
      for (const key of Object.keys(copy)) if (list.fields.get(key)?.kind === 'file') copy[key] = mapValue(copy[key], `${name}.${key}`);
      return copy;
    });
  }
  return out;
}

/** A command's input with each file id its fields (or its bulk parts' fields) give replaced by what `visit` makes of it. */
function mapPlanFiles(model: CompiledModel, kind: CommandKind, input: Readonly<Record<string, unknown>>, visit: FileVisitor): Record<string, unknown> {
  if (!takesValueParts(kind)) return mapRecordFiles(model, input, visit);
  return withParts(kind, input, valueParts(kind, input).map((part) => mapRecordFiles(model, part.values, visit)));
}

/** Every file id the input gives, with its field. */
function planFiles(model: CompiledModel, kind: CommandKind, input: Readonly<Record<string, unknown>>): { id: string; field: string }[] {
  const found: { id: string; field: string }[] = [];
  mapPlanFiles(model, kind, input, (id, field) => found.push({ id, field }));
  return found;
}

export async function withPlanFiles(service: RecordService, caller: Caller, plans: readonly PlanInfo[]): Promise<PlanInfo[]> {
  const out: PlanInfo[] = [];
  for (const plan of plans) {
    const command = service.commands.get(plan.command);
    const input = plan.input as Record<string, unknown> | null;
    const named = command && input ? planFiles(command.model, command.meta.kind, input) : [];
    if (!command || !input || named.length === 0) {
      out.push(plan);
      continue;
    }
    const files = await findFiles(service.db, [...new Set(named.map((file) => file.id))]);
    const shown = new Map<string, unknown>();
    for (const { id } of named) {
      const file = files.get(id);
      if (!file || shown.has(id)) continue;
      const mayShow = file.uploadedBy === `agent:${plan.agent.id}` || (await readableHolder(service, caller, id)) !== undefined;
      if (mayShow) shown.set(id, fileRef(file));
    }
    out.push({ ...plan, input: mapPlanFiles(command.model, command.meta.kind, input, (id) => shown.get(id) ?? id) });
  }
  return out;
}

/** A pending plan that names the file: where it would attach it (its record: none for a create), as downloads are audited. */
export interface PlanHolder {
  readonly planId: string;
  readonly model: string;
  readonly recordId: string | null;
  /** `<field>` or `<lines>.<field>`. */
  readonly field: string;
}

/**
 * The first pending plan through which this caller may download the file: a person who may decide
 * the plan (`personMayDecide`: its command's rights and every field it writes, read and written),
 * the file uploaded by the plan's agent and named by the plan's input in a file field. Agents have
 * no such way (their own uploads they hold already).
 */
export async function pendingPlanHolding(service: RecordService, caller: Caller, file: StoredFile): Promise<PlanHolder | undefined> {
  const fileId = file.id;
  if (caller.kind !== 'person' || !FILE_ID.test(fileId) || !file.uploadedBy.startsWith('agent:')) return undefined;
  const agentTokenId = file.uploadedBy.slice('agent:'.length);
  // The id as JSON holds it finds the candidates; the parsed input decides (a text value may hold the id too).
  const rows = (await service.db(PLAN_TABLE).where({ status: 'pending', agent_token_id: agentTokenId }).andWhere('input', 'like', `%"${fileId}"%`).orderBy('id').limit(50)) as PlanRow[];
  for (const plan of rows) {
    const command = service.commands.get(plan.command);
    if (!command) continue;
    const named = planFiles(command.model, command.meta.kind, parseStoredCommand(plan.input).input).find((candidate) => candidate.id === fileId);
    if (named && (await personMayDecide(service, caller, plan))) return { planId: plan.id, model: command.model.meta.name, recordId: plan.record_id, field: named.field };
  }
  return undefined;
}
