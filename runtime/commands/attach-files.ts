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
import { accepts, sizeInWords } from '../files/media-types.ts';
import { fileRef, findFiles, uploaderKey, type StoredFile } from '../files/store.ts';
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

/** A value to resolve: where it is, its field, the ids it gives, and where to put the files. */
interface Slot {
  readonly path: string;
  readonly field: FieldMeta;
  readonly ids: readonly string[];
  readonly set: (value: FileRef | FileRef[]) => void;
}

/** The input with its file fields' ids (and its lines') as the files they name; the input itself when none is given. */
export async function attachFiles(ctx: CommandContext, db: Knex, input: Readonly<Record<string, unknown>>): Promise<Record<string, unknown>> {
  const model = ctx.command.model;
  if (!holdsFiles(model)) return input as Record<string, unknown>;
  const out: Record<string, unknown> = { ...input };
  const slots: Slot[] = [];
  const collect = (holder: Record<string, unknown>, field: FieldMeta | undefined, path: string) => {
    const value = field?.kind === 'file' ? holder[field.name] : undefined;
    if (typeof value === 'string') slots.push({ path, field: field!, ids: [value], set: (files) => (holder[field!.name] = (files as FileRef[])[0]) });
    else if (Array.isArray(value) && value.every((id) => typeof id === 'string')) slots.push({ path, field: field!, ids: value as string[], set: (files) => (holder[field!.name] = files) });
  };
  for (const name of Object.keys(input)) {
    collect(out, model.fields.get(name), `${model.meta.name}.${name}`);
    const list = model.lines.get(name);
    if (!list || !Array.isArray(input[name])) continue;
    out[name] = (input[name] as Record<string, unknown>[]).map((line, index) => {
      const copy = { ...line };
      for (const key of Object.keys(line)) collect(copy, list.fields.get(key), `${model.meta.name}.${name}[${index}].${key}`);
      return copy;
    });
  }
  if (slots.length === 0) return out;
  const files = await findFiles(db, [...new Set(slots.flatMap((slot) => slot.ids))]);
  const allowed = new Map<string, boolean>();
  for (const slot of slots) {
    const attached: FileRef[] = [];
    for (const id of slot.ids) {
      const file = files.get(id);
      if (!file || !(await mayAttach(ctx, db, file, allowed))) throw badRequest(`${slot.path}: no file with id ${id}`);
      const accept = slot.field.accept ?? [];
      if (!accepts(accept, file.type)) throw badRequest(`${slot.path}: file ${id} is ${file.type}, not of the types the field takes (${accept.join(', ')})`);
      if (slot.field.maxSize !== undefined && file.size > slot.field.maxSize) throw badRequest(`${slot.path}: file ${id} is ${sizeInWords(file.size)}, more than the field takes (${sizeInWords(slot.field.maxSize)})`);
      attached.push(fileRef(file));
    }
    slot.set(attached);
  }
  return out;
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
