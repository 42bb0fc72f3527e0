/**
 * The models' computed fields, worked out in the browser while people type, by the same generated
 * functions the server runs on every write (`generated/logic.ts`, bundled into the app by
 * web/build.ts from the served project's generated/). The server computes again when it saves:
 * what the form shows is a preview.
 */
import { logic as generated } from 'rmsgen:generated-logic';
import { computedValue } from './form.ts';
import type { ModelInfo } from './types.ts';

/** What the app uses of a model's generated logic. */
export interface BrowserLogic {
  /** Sets every computed field of the record and its lines (lines first), in place. */
  compute(record: Record<string, unknown>): void;
}

/** The logic of `model`, when the bundle has it (a model without computed fields may have none). */
export function logicOf(model: string): BrowserLogic | undefined {
  return Object.hasOwn(generated, model) ? generated[model] : undefined;
}

/**
 * The record with its computed fields worked out (each as the server would store it), or undefined
 * when the model has no logic here or its functions fail on what the inputs hold now.
 */
export function computed(model: ModelInfo, record: Record<string, unknown>): Record<string, unknown> | undefined {
  const logic = logicOf(model.name);
  if (!logic) return undefined;
  try {
    logic.compute(record);
  } catch {
    return undefined;
  }
  for (const field of model.fields) if (field.computed) record[field.name] = computedValue(field, record[field.name]);
  for (const list of model.lines) {
    const lines = Array.isArray(record[list.name]) ? (record[list.name] as Record<string, unknown>[]) : [];
    for (const line of lines) for (const field of list.fields) if (field.computed) line[field.name] = computedValue(field, line[field.name]);
  }
  return record;
}
