/**
 * Table-driven refusal cases: a model's definition (its text inside `models: { m: … }` of
 * `modules/crm/module.ts`) and the exact lines `rmsgen check` prints for it, located by the text
 * they are about (`at('pct:')` is the line of the first line holding `pct:`).
 */
import { expect } from 'vitest';
import { RmsgenError } from '../../../generator/errors.ts';
import { loadProject } from '../../../generator/pipeline.ts';
import { oneModule } from '../../helpers/module-trees.ts';

export const F = 'modules/crm/module.ts';

export interface RefusalCase {
  readonly name: string;
  /** The model `m`'s definition, an object literal. */
  readonly model: string;
  /** The module's roles (default: `clerk` may use `m`). */
  readonly roles?: string;
  /** The lines expected, given where a text is in the module file. */
  readonly lines: (at: (text: string) => number) => readonly string[];
}

/** The module file of a case. */
export function moduleText(testCase: Pick<RefusalCase, 'model' | 'roles'>): string {
  return `export default {\n  models: {\n    m: ${testCase.model},\n  },\n  roles: ${testCase.roles ?? "{ clerk: { m: '*' } }"},\n};\n`;
}

/** The 1-based line of the first line of `text` holding `marker`. */
export function lineFinder(text: string): (marker: string) => number {
  const lines = text.split('\n');
  return (marker) => {
    const index = lines.findIndex((line) => line.includes(marker));
    if (index < 0) throw new Error(`no line holds ${marker}`);
    return index + 1;
  };
}

/** The problem lines the module's definition is refused with (none when it is accepted). */
export async function refusalLines(text: string): Promise<readonly string[]> {
  const dir = oneModule(text);
  try {
    await loadProject(`${dir}/modules`);
    return [];
  } catch (error) {
    if (error instanceof RmsgenError) return error.problems;
    throw error;
  }
}

/** Checks one case: exactly its lines, in order. */
export async function expectRefusal(testCase: RefusalCase): Promise<void> {
  const text = moduleText(testCase);
  expect(await refusalLines(text)).toEqual(testCase.lines(lineFinder(text)));
}
