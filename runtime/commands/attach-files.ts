/**
 * Attaching files: a write gives a file field the ids of uploaded files (kinds.ts checked their
 * form); here, in the write's transaction, each id becomes the file as records hold it
 * (`FileRef`), once the caller may attach it and it fits the field. A caller may attach a file it
 * uploaded (an approved plan: one its agent uploaded), or one it may read where a record holds it;
 * any other id is refused exactly as an unknown one, so the answer tells nothing of others'
 * uploads. A file that is not of the field's `accept` types, or is larger than its `max_size`,
 * is refused naming the field. Values that are files already (a revert puts back what history
 * kept) are kept as they are.
 */
import type { Knex } from 'knex';
import type { FileRef } from '../api-shapes.ts';
import { badRequest } from '../errors.ts';
import { readableHolder } from '../files/access.ts';
import { accepts, sizeInWords, sizeOverInWords } from '../files/media-types.ts';
import { fileRef, findFiles, touchFiles, uploaderKey, type StoredFile } from '../files/store.ts';
import { findIssuedToken } from '../masking/token-store.ts';
import type { FieldMeta } from '../registry.ts';
import type { CommandContext, CompiledModel } from './types.ts';

const hasFileFields = new WeakMap<CompiledModel, boolean>();

function holdsFiles(model: CompiledModel): boolean {
  let holds = hasFileFields.get(model);
  if (holds === undefined) {
    holds = model.meta.fields.some((field) => field.kind === 'file') || [...model.lines.values()].some((list) => list.meta.fields.some((field) => field.kind === 'file'));
    hasFileFields.set(model, holds);
  }
  return holds;
}

/**
 * A value to resolve: where it is, its field, the ids it gives, where to put the files, and the
 * masking token an agent sent for it, when it sent one.
 */
interface Slot {
  readonly path: string;
  readonly field: FieldMeta;
  readonly ids: readonly string[];
  readonly set: (value: FileRef | FileRef[]) => void;
  token: string | undefined;
}

/**
 * The input with its file fields' ids (and its lines') as the files they name; the input itself
 * when none is given. `sentTokens` (an agent's write, or the plan of one: masking/agent-input.ts,
 * keyed as it keys them) names the personal values the agent sent as tokens: a file a token it was
 * given stands for is its to attach, as any value a token stands for is its to store, and is named
 * by that token, never by its id, when it does not fit the field.
 */
export async function attachFiles(
  ctx: CommandContext,
  db: Knex,
  input: Readonly<Record<string, unknown>>,
  sentTokens: Readonly<Record<string, string>> = {},
): Promise<Record<string, unknown>> {
  const model = ctx.command.model;
  if (!holdsFiles(model)) return input as Record<string, unknown>;
  const out: Record<string, unknown> = { ...input };
  const slots: Slot[] = [];
  const collect = (holder: Record<string, unknown>, field: FieldMeta | undefined, path: string, key: string) => {
    const value = field?.kind === 'file' ? holder[field.name] : undefined;
    const token = sentTokens[key];
    if (typeof value === 'string') slots.push({ path, field: field!, ids: [value], set: (files) => (holder[field!.name] = (files as FileRef[])[0]), token });
    else if (Array.isArray(value) && value.every((id) => typeof id === 'string')) slots.push({ path, field: field!, ids: value as string[], set: (files) => (holder[field!.name] = files), token });
  };
  for (const name of Object.keys(input)) {
    collect(out, model.fields.get(name), `${model.meta.name}.${name}`, name);
    const list = model.lines.get(name);
    if (!list || !Array.isArray(input[name])) continue;
    out[name] = (input[name] as Record<string, unknown>[]).map((line, index) => {
      const copy = { ...line };
      for (const key of Object.keys(line)) collect(copy, list.fields.get(key), `${model.meta.name}.${name}[${index}].${key}`, `${name}.${index}.${key}`);
      return copy;
    });
  }
  if (slots.length === 0) return out;
  await keepTokensGivenByReading(ctx, db, slots);
  const files = await findFiles(db, [...new Set(slots.flatMap((slot) => slot.ids))]);
  const allowed = new Map<string, boolean>();
  for (const slot of slots) {
    const attached: FileRef[] = [];
    for (const id of slot.ids) {
      const file = files.get(id);
      const accept = slot.field.accept ?? [];
      const maxSize = slot.field.maxSize;
      if (slot.token !== undefined) {
        // What a token stands for is not told: not its id, its type or its size.
        const named = `${slot.path}: the file ${slot.token} stands for`;
        if (!file) throw badRequest(`${named} is gone`);
        if (!accepts(accept, file.type)) throw badRequest(`${named} is not of the types the field takes (${accept.join(', ')})`);
        if (maxSize !== undefined && file.size > maxSize) throw badRequest(`${named} is larger than the field takes (${sizeInWords(maxSize)})`);
      } else {
        if (!file || !(await mayAttach(ctx, db, file, allowed))) throw badRequest(`${slot.path}: no file with id ${id}`);
        if (!accepts(accept, file.type)) throw badRequest(`${slot.path}: file ${id} is ${file.type}, not of the types the field takes (${accept.join(', ')})`);
        if (maxSize !== undefined && file.size > maxSize) throw badRequest(`${slot.path}: file ${id} is ${sizeOverInWords(file.size, maxSize)}, more than the field takes (${sizeInWords(maxSize)})`);
      }
      attached.push(fileRef(file));
    }
    slot.set(attached);
  }
  await touchFiles(db, [...files.keys()], new Date(ctx.service.clock.now()).toISOString());
  return out;
}

/**
 * Keeps a slot's token only when the agent was given it by reading (a shared token): that stands
 * for a file the agent saw where a record holds it. A written token stands for an id the agent
 * sent in clear itself, which is checked as any id is (and the agent knows that id).
 */
async function keepTokensGivenByReading(ctx: CommandContext, db: Knex, slots: Slot[]): Promise<void> {
  const agentTokenId = ctx.caller.kind === 'agent' ? ctx.caller.tokenId : ctx.proposedByAgent;
  for (const slot of slots) {
    if (slot.token === undefined) continue;
    const issued = agentTokenId === undefined || slot.field.maskLabel === undefined ? undefined : await findIssuedToken(db, agentTokenId, slot.field.maskLabel, slot.token).catch(() => undefined);
    if (issued === undefined || issued.written) slot.token = undefined;
  }
}

async function mayAttach(ctx: CommandContext, db: Knex, file: StoredFile, allowed: Map<string, boolean>): Promise<boolean> {
  if (file.uploadedBy === uploaderKey(ctx.caller)) return true;
  if (ctx.proposedByAgent !== undefined && file.uploadedBy === `agent:${ctx.proposedByAgent}`) return true;
  let may = allowed.get(file.id);
  if (may === undefined) {
    may = (await readableHolder(ctx.service, ctx.caller, file.id, db)) !== undefined;
    allowed.set(file.id, may);
  }
  return may;
}
