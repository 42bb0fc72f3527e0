/**
 * Walking every command of a registry with valid inputs made from its metadata alone, so that a
 * test holds for whatever modules a project has: records with every field given a value of its
 * kind, records moved into the state an action runs from, and the input of each command.
 */
import { expect } from 'vitest';
import type { CommandMeta, FieldMeta, ModelMeta, Registry } from '../../runtime/registry.ts';
import type { TestServer } from './server.ts';

let counter = 0;

/**
 * Values of the patterns the fixture modules declare, by pattern: a pattern's language is not
 * sampled in general (a field with another pattern fails its create, saying so).
 */
const PATTERN_SAMPLES: Readonly<Record<string, (n: number) => string>> = {
  '[A-Z]{2}-[0-9]{4,}': (n) => `XY-${1000 + n}`,
};

/** `value` within the field's `min` and `max`. */
function inRange(field: FieldMeta, value: number): number {
  const min = typeof field.min === 'number' ? field.min : -Infinity;
  const max = typeof field.max === 'number' ? field.max : Infinity;
  return Math.min(max, Math.max(min, value));
}

/** A valid value of the field's kind and checks (unique per call); refs point at `refs[target]`. */
export function sampleValue(field: FieldMeta, refs: Readonly<Record<string, string>>): unknown {
  const n = ++counter;
  switch (field.kind) {
    case 'text':
    case 'longtext':
      return field.pattern !== undefined ? (PATTERN_SAMPLES[field.pattern]?.(n) ?? `${field.label} ${n}`) : `${field.label} ${n}`;
    case 'number':
      return inRange(field, n);
    case 'money':
      return inRange(field, 100 * n);
    case 'decimal':
      return inRange(field, n + 0.5);
    case 'date':
      return `2026-0${1 + (n % 9)}-1${n % 10}`;
    case 'datetime':
      return `2026-0${1 + (n % 9)}-1${n % 10}T12:00:00.000Z`;
    case 'email':
      return `someone.${n}@example.org`;
    case 'url':
      return `https://example.org/${n}`;
    case 'phone':
      return `+31 20 ${1_000_000 + n}`;
    case 'bool':
      return n % 2 === 0;
    case 'select':
      return field.options![n % field.options!.length];
    case 'multiselect':
      return [field.options![n % field.options!.length]];
    case 'ref':
      return refs[field.target!];
  }
}

/**
 * Every field a create may give (not governed, not computed), each with a sample value, and each
 * line list with as many sample lines as it needs (at least one). An optional field a rule is
 * about is left out: a sample could break the rule.
 */
export function recordInput(model: ModelMeta, refs: Readonly<Record<string, string>>): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  const ruled = new Set(model.rules.flatMap((rule) => rule.fields));
  for (const field of model.fields) {
    if (field.governed || field.computed || (ruled.has(field.name) && !field.required)) continue;
    input[field.name] = sampleValue(field, refs);
  }
  for (const list of model.lines) {
    input[list.name] = Array.from({ length: Math.max(1, list.min) }, () =>
      Object.fromEntries(list.fields.filter((field) => !field.computed).map((field) => [field.name, sampleValue(field, refs)])),
    );
  }
  return input;
}

/** Creates a record as `token` (a person who may) and answers its id. */
export async function makeRecord(t: TestServer, token: string, model: ModelMeta, refs: Readonly<Record<string, string>>): Promise<string> {
  const res = await t.command(token, `${model.name}.create`, recordInput(model, refs));
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.value.id;
}

/** One record of each model, in dependency order, so that refs have targets: model → id. */
export async function oneOfEach(t: TestServer, token: string, registry: Registry): Promise<Record<string, string>> {
  const refs: Record<string, string> = {};
  for (const model of Object.values(registry.models)) refs[model.name] = await makeRecord(t, token, model, refs);
  return refs;
}

/** The required inputs of an action (fields of the model or not), with sample values. */
export function actionInputs(model: ModelMeta, command: CommandMeta, refs: Readonly<Record<string, string>>): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const field of command.action?.inputs ?? []) if (field.required) input[field.name] = sampleValue(field, refs);
  return input;
}

/**
 * A new record in a state the action runs from: made, then moved by running actions as `token`
 * along the shortest way from the first state.
 */
export async function recordReadyFor(t: TestServer, token: string, registry: Registry, model: ModelMeta, command: CommandMeta, refs: Readonly<Record<string, string>>): Promise<string> {
  const id = await makeRecord(t, token, model, refs);
  const action = command.action!;
  const field = model.fields.find((candidate) => candidate.name === action.field)!;
  // Breadth-first over the model's actions on this field, from its first option.
  const start = field.options![0]!;
  const way = new Map<string, string[]>([[start, []]]);
  const queue = [start];
  while (queue.length > 0 && !action.from.some((state) => way.has(state))) {
    const state = queue.shift()!;
    for (const step of model.actions.filter((candidate) => candidate.field === action.field && candidate.from.includes(state))) {
      if (way.has(step.to)) continue;
      way.set(step.to, [...way.get(state)!, step.name]);
      queue.push(step.to);
    }
  }
  const target = action.from.find((state) => way.has(state));
  expect(target, `no way to a state ${command.id} runs from`).toBeDefined();
  for (const name of way.get(target!)!) {
    const step = registry.commands[`${model.name}.${name}`]!;
    const res = await t.command(token, step.id, { id, ...actionInputs(model, step, refs) });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }
  return id;
}

/** A non-governed, non-ref field an update can change (the title when it is one), or undefined. */
export function updatableField(model: ModelMeta): FieldMeta | undefined {
  const candidates = model.fields.filter((field) => !field.governed && field.kind !== 'ref' && field.kind !== 'bool');
  return candidates.find((field) => field.name === model.titleField) ?? candidates[0];
}
