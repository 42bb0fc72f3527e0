/** The generator's stages chained: load → validate → emit. `write` stays with the caller. */
import { posix, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { emit, type FileMap } from './emit/index.ts';
import type { ProjectIR } from './ir.ts';
import { loadModules, type ModuleImporter } from './load.ts';
import { validate } from './validate/index.ts';

/** The runtime folder of this rmsgen checkout; generated code imports it relatively. */
const RUNTIME_DIR = fileURLToPath(new URL('../runtime/', import.meta.url));

export async function loadProject(modulesDir: string, importModule?: ModuleImporter): Promise<ProjectIR> {
  return validate(await loadModules(modulesDir, importModule));
}

/** The file map for an output folder (only its location matters: imports of the runtime are relative to it). */
export function generate(ir: ProjectIR, outDir: string): FileMap {
  const runtimeDir = relative(resolve(outDir), RUNTIME_DIR).split(sep).join(posix.sep);
  return emit(ir, { runtimeDir });
}
