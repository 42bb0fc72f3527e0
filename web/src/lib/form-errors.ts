/**
 * Where a refusal of the server belongs in a form: beside the field it names
 * (`order.deliver_by must be …`), beside a line's field (`order.items[2].quantity is required`),
 * on a line (`order.items[0].id is not a line of this order`), on a line list
 * (`order.items needs at least 1 line`), or beside the fields a rule names
 * (`{"error": "order: <message>", "fields": ["deliver_by"]}`). Each in the person's words: the
 * field's label instead of its path.
 */
import { errorField, fieldMessage } from './api.ts';
import type { ModelInfo } from './types.ts';

export type ErrorPlace =
  | { readonly kind: 'field'; readonly field: string; readonly message: string }
  | { readonly kind: 'line'; readonly list: string; readonly index: number; readonly field?: string; readonly message: string }
  | { readonly kind: 'list'; readonly list: string; readonly message: string }
  | { readonly kind: 'rule'; readonly fields: readonly string[]; readonly message: string };

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** The place of a 400's error text (and its body's `fields`, for a rule), or undefined when it names nothing of the form. */
export function placeError(model: ModelInfo, message: string, body?: unknown): ErrorPlace | undefined {
  const rulePrefix = `${model.name}: `;
  if (message.startsWith(rulePrefix)) {
    const named = (body as { fields?: unknown } | undefined)?.fields;
    const fields = Array.isArray(named) ? named.filter((name): name is string => typeof name === 'string') : [];
    return { kind: 'rule', fields, message: capitalized(message.slice(rulePrefix.length)) };
  }
  for (const list of model.lines) {
    const path = `${model.name}.${list.name}`;
    if (!message.startsWith(path)) continue;
    const rest = message.slice(path.length);
    const line = /^\[(\d+)\](?:\.([A-Za-z0-9_]+))?(.*)$/s.exec(rest);
    if (line) {
      const index = Number(line[1]);
      const field = line[2] === undefined ? undefined : list.fields.find((candidate) => candidate.name === line[2]);
      if (field) return { kind: 'line', list: list.name, index, field: field.name, message: `${field.label}${line[3]}` };
      return { kind: 'line', list: list.name, index, message: `Line ${index + 1}: ${line[2] === undefined ? line[3]!.trim() : `${line[2]}${line[3]}`}` };
    }
    if (/^\s/.test(rest)) return { kind: 'list', list: list.name, message: `${list.label}${rest}` };
  }
  const name = errorField(message, model.name, model.fields.map((field) => field.name));
  const field = name === undefined ? undefined : model.fields.find((candidate) => candidate.name === name);
  return field ? { kind: 'field', field: field.name, message: fieldMessage(message, model.name, field) } : undefined;
}
