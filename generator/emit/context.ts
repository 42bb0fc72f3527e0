/** What every emitter receives, with every default resolved once. */
import { posix } from 'node:path';
import type { ModelIR, ProjectIR } from '../ir.ts';
import { camelCase } from '../names.ts';
import type { SourceText } from './source.ts';

export interface EmitOptions {
  /** The runtime folder relative to the output folder, POSIX style. Default `../runtime`. */
  readonly runtimeDir?: string;
}

export interface EmitContext {
  readonly ir: ProjectIR;
  /** Import specifier of a runtime file (`kinds.ts`, `registry.ts`) from a generated file. */
  runtimeImport(from: string, file: string): string;
}

/** A file an emitter wants: its path in the output folder, the source named in its banner, and its statements. */
export interface PlannedSource {
  readonly path: string;
  /** Shown in the banner: a module file, or `modules/*\/module.ts` for project-wide files. */
  readonly source: string;
  build(file: SourceText): void;
}

/** A JSON document an emitter wants (`openapi.json`): printed with the banner as its first member. */
export interface PlannedJson {
  readonly path: string;
  readonly source: string;
  document(): { readonly [key: string]: unknown };
}

export type PlannedFile = PlannedSource | PlannedJson;

export type Emitter = (context: EmitContext) => PlannedFile[];

export function createContext(ir: ProjectIR, options: EmitOptions = {}): EmitContext {
  const runtimeDir = options.runtimeDir ?? '../runtime';
  return {
    ir,
    runtimeImport(from, file) {
      const depth = from.split('/').length - 1;
      const specifier = posix.normalize(`${'../'.repeat(depth)}${runtimeDir}/${file}`);
      return specifier.startsWith('.') ? specifier : `./${specifier}`;
    },
  };
}

/** `crm/lead` — the path of a model's files without the artifact suffix. */
export function modelBase(model: ModelIR): string {
  return `${model.module}/${model.name}`;
}

/** Identifiers of a model's exports in other files. */
export function modelExports(model: ModelIR) {
  const camel = camelCase(model.name);
  return { model: `${camel}Model`, commands: `${camel}Commands`, tools: `${camel}Tools`, queries: `${camel}Queries` };
}

/** Banner source of the project-wide files. */
export function projectSource(dirName: string): string {
  return `${dirName}/*/module.ts`;
}
