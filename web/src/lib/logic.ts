/**
 * The models' computed fields, worked out in the browser while people type, by the same generated
 * functions the server runs on every write (`generated/logic.ts`, bundled into the app by
 * web/build.ts from the served project's generated/). The server computes again when it saves:
 * what the form shows is a preview.
 */
import { logic as generated } from 'rmsgen:generated-logic';

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
 * The record with its computed fields worked out, or undefined when the model has no logic here
 * or its functions fail on what the inputs hold now (a half-typed line).
 */
export function computed(model: string, record: Record<string, unknown>): Record<string, unknown> | undefined {
  const logic = logicOf(model);
  if (!logic) return undefined;
  try {
    logic.compute(record);
    return record;
  } catch {
    return undefined;
  }
}
