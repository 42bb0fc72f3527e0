/**
 * A throw-away copy of this project with N generated models instead of the demo modules, for
 * measuring `rmsgen build`, `build --check` and `serve`'s start-up and memory as the number of
 * models grows.
 *
 * The copy holds what `rmsgen build` and `serve` read (bin/, generator/, runtime/, web/ with its
 * built dist/, package.json, tsconfig.json; node_modules linked) and `modules/` with N models in
 * modules of ten. Each model is shaped like `lead`: text, longtext (personal), money, number,
 * date, bool, a governed select with two actions, a field hidden from agents, and a ref to the
 * model before it in its module.
 *
 *   node --import tsx bench/model-project.ts <models> [<dir>]   # prints the folder
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const MODELS_PER_MODULE = 10;
/** What `build` and `serve` need; everything else (tests, docs, data) stays behind. */
const COPIED = ['bin', 'generator', 'runtime', 'web', 'package.json', 'tsconfig.json'];

export interface ModelProject {
  readonly dir: string;
  readonly models: number;
  remove(): void;
}

/** Copies the project into `dir` (default: a new temp folder) with `models` generated models and no generated/ yet. */
export function createModelProject(models: number, dir = mkdtempSync(join(tmpdir(), `rmsgen-models-${models}-`))): ModelProject {
  if (!Number.isInteger(models) || models < 1) throw new Error(`models must be a whole number from 1, not ${models}`);
  mkdirSync(dir, { recursive: true });
  for (const entry of COPIED) cpSync(join(ROOT, entry), join(dir, entry), { recursive: true, preserveTimestamps: true });
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  const modules = Math.ceil(models / MODELS_PER_MODULE);
  for (let m = 0; m < modules; m++) {
    const count = Math.min(MODELS_PER_MODULE, models - m * MODELS_PER_MODULE);
    const name = moduleName(m);
    mkdirSync(join(dir, 'modules', name), { recursive: true });
    writeFileSync(join(dir, 'modules', name, 'module.ts'), moduleSource(m, count));
  }
  return { dir, models, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

function moduleName(m: number): string {
  return `bench_${String(m + 1).padStart(3, '0')}`;
}

function modelName(m: number, i: number): string {
  return `b${String(m + 1).padStart(3, '0')}_item_${String(i + 1).padStart(2, '0')}`;
}

function moduleSource(m: number, count: number): string {
  const models = Array.from({ length: count }, (_, i) => modelSource(m, i)).join('\n');
  const names = Array.from({ length: count }, (_, i) => modelName(m, i));
  return `import { defineModule } from '../../generator/define.ts';

export default defineModule({
  label: 'Bench ${m + 1}',
  description: 'Generated for measuring build and start-up with many models.',
  models: {
${models}
  },
  roles: {
    sales: { ${names.map((name) => `${name}: '*'`).join(', ')} },
    accountant: { ${names.map((name) => `${name}: ['get', 'list', 'search']`).join(', ')} },
  },
});
`;
}

function modelSource(m: number, i: number): string {
  const name = modelName(m, i);
  const ref = i > 0 ? `\n        previous: { kind: 'ref', to: '${modelName(m, i - 1)}', label: 'Previous' },` : '';
  return `    ${name}: {
      label: 'Item ${m + 1}.${i + 1}',
      description: 'A generated record with every field kind.',
      title: 'title',
      fields: {
        title: { kind: 'text', required: true, label: 'Title' },${ref}
        stage: { kind: 'select', options: ['open', 'done', 'dropped'], governed: true, label: 'Stage' },
        amount: { kind: 'money', label: 'Amount' },
        quantity: { kind: 'number', label: 'Quantity' },
        due_date: { kind: 'date', label: 'Due date' },
        urgent: { kind: 'bool', label: 'Urgent' },
        notes: { kind: 'longtext', personal: true, label: 'Notes' },
        cost: { kind: 'money', label: 'Cost', read: ['admin', 'accountant'], agents: 'hidden' },
      },
      actions: {
        finish: { description: 'Mark it done', from: 'open', to: 'done' },
        drop: { description: 'Drop it', from: 'open', to: 'dropped', needs_approval: true },
      },
    },`;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const models = Number(process.argv[2]);
  const project = createModelProject(models, process.argv[3] === undefined ? undefined : resolve(process.argv[3]));
  console.log(project.dir);
}
