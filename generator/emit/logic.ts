/**
 * `<module>/<model>.logic.ts`: the model's computed fields and rules, as the runtime runs them in
 * every write's transaction (`ModelLogic`). Each function is copied as written in the module file,
 * as the initializer of a constant whose type gives its parameter the record's type: so the
 * TypeScript compiler checks the function against the model (a misspelt field is an error, which
 * `rmsgen build` reports at the function's line in the module file, see check-logic.ts).
 *
 * And `logic.ts`: every model's logic by name, for the web app, which bundles it to show computed
 * values while a record is typed. Neither imports code of the runtime (only its types), so the
 * bundle pulls nothing of the server.
 */
import { createHash } from 'node:crypto';
import type { FieldIR, LineListIR, LogicSource, ModelIR } from '../ir.ts';
import { allModels } from '../ir.ts';
import { readsField } from '../definition-source.ts';
import { camelCase, inSentence, pascalCase, plural } from '../names.ts';
import { modelBase, projectSource, type EmitContext, type Emitter, type PlannedFile } from './context.ts';
import { alwaysSet } from './model.ts';
import { code, docComment, lineComment, literal, quote } from './print.ts';
import { valueType } from './schemas.ts';
import type { PropertySignature, SourceText } from './source.ts';

/** A function of the module file as the logic file declares it: `const <name>: <type> = <copied text>;`. */
export interface LogicFunction {
  /** The constant it is assigned to. */
  readonly name: string;
  /** The constant's type, which types the copy's parameter: `(order: OrderValues) => number`. */
  readonly type: string;
  readonly source: LogicSource;
  /** What it is in the module: a field of the model or of a line list, or a rule. */
  readonly of: { readonly lines?: string; readonly field?: string; readonly rule?: number };
}

/** `computeTotal`, `computeItemsAmount`, `checkRule1`. */
export function logicNames(model: ModelIR) {
  const pascal = pascalCase(model.name);
  return {
    values: `${pascal}Values`,
    lineValues: (list: LineListIR) => `${pascal}${pascalCase(list.name)}LineValues`,
    logic: `${camelCase(model.name)}Logic`,
  };
}

/**
 * The type of a field's value in the functions' view: never empty when required, governed or
 * computed (alwaysSet). A default does not make it so: it fills in a field a create leaves out,
 * and a caller may still write null to it.
 */
function valueOf(field: FieldIR): string {
  return `${valueType(field)}${alwaysSet(field) ? '' : ' | null'}`;
}

/** The functions a model's logic file copies, in the order compute runs them: each line list's fields, then the record's; then the rules. */
export function logicFunctions(model: ModelIR): LogicFunction[] {
  const names = logicNames(model);
  const functions: LogicFunction[] = [];
  for (const list of model.lines) {
    for (const field of inReadingOrder(list.fields)) {
      if (!field.computed) continue;
      const name = `compute${pascalCase(list.name)}${pascalCase(field.name)}`;
      functions.push({ name, type: `(line: ${names.lineValues(list)}) => ${valueType(field)}`, source: field.computed, of: { lines: list.name, field: field.name } });
    }
  }
  for (const field of inReadingOrder(model.fields)) {
    if (!field.computed) continue;
    const name = `compute${pascalCase(field.name)}`;
    functions.push({ name, type: `(record: ${names.values}) => ${valueType(field)}`, source: field.computed, of: { field: field.name } });
  }
  model.rules.forEach((rule, index) => {
    const name = `checkRule${index + 1}`;
    functions.push({ name, type: `(record: ${names.values}) => boolean`, source: rule.check, of: { rule: index } });
  });
  return functions;
}

/**
 * Fields in declaration order, except that a computed field comes after the computed fields its
 * function reads (`r.subtotal`, `r['subtotal']`), so that it sees their values of this write, not
 * the stored ones. What a function reads is found in its text, so a name it only mentions counts
 * too: that moves a field later, which is harmless; where reads go round in a circle, the fields
 * of the circle keep their declaration order.
 */
export function inReadingOrder(fields: readonly FieldIR[]): FieldIR[] {
  const computed = fields.filter((field) => field.computed);
  const reads = new Map(
    computed.map((field) => [field, computed.filter((other) => other !== field && readsField(field.computed!.text, other.name))]),
  );
  const placed: FieldIR[] = [];
  const left = [...computed];
  while (left.length > 0) {
    // The first field (in declaration order) whose reads are all placed; none: a circle, the first.
    const next = left.find((field) => reads.get(field)!.every((read) => placed.includes(read))) ?? left[0]!;
    placed.push(next);
    left.splice(left.indexOf(next), 1);
  }
  return [...fields.filter((field) => !field.computed), ...placed];
}

function valuesProperties(fields: readonly FieldIR[]): PropertySignature[] {
  return fields.map((field) => ({ name: field.name, type: valueOf(field), isReadonly: true }));
}

function buildLogicFile(context: EmitContext, model: ModelIR, path: string, file: SourceText): void {
  const names = logicNames(model);
  const phrase = inSentence(model.label);
  const functions = logicFunctions(model);
  const computed = functions.filter((fn) => fn.of.rule === undefined);
  const module = context.ir.modules.find((candidate) => candidate.name === model.module);
  const source = module?.source ?? model.module;
  file.addLeadingComment(
    docComment(
      functions.length === 0
        ? `The logic of ${plural(phrase)}: they have no computed fields and no rules.`
        : `The computed fields and rules of ${plural(phrase)}, copied from ${source} and typed with the ${phrase} as it will be written: ` +
            'every field (those with a value on every write never empty), each line list as its lines, computed ones already worked out. ' +
            'The runtime runs them in the transaction of every write; the web app, to show computed values while a record is typed.',
    ),
  );
  file.addImportDeclaration({ isTypeOnly: true, moduleSpecifier: context.runtimeImport(path, 'registry.ts'), namedImports: ['ModelLogic'] });
  if (functions.length > 0) {
    for (const list of model.lines) {
      file.addInterface({
        name: names.lineValues(list),
        isExported: true,
        docs: `A line of \`${model.name}.${list.name}\` as the functions see it.`,
        properties: valuesProperties(list.fields),
      });
    }
    file.addInterface({
      name: names.values,
      isExported: true,
      docs: `${capitalised(withThe(phrase))} as the functions see it.`,
      properties: [
        ...valuesProperties(model.fields),
        ...model.lines.map((list) => ({ name: list.name, type: `readonly ${names.lineValues(list)}[]`, isReadonly: true })),
      ],
    });
  }
  for (const fn of functions) {
    const what = fn.of.rule !== undefined ? `Rule ${fn.of.rule + 1}` : fn.of.lines !== undefined ? `\`${model.name}.${fn.of.lines}[].${fn.of.field}\`` : `\`${model.name}.${fn.of.field}\``;
    // The copy is the whole initializer, as written: check-logic.ts finds it after its declaration's head.
    file.addConst({ name: fn.name, docs: `${what}, as written at ${source}:${fn.source.line}.`, type: fn.type, initializer: fn.source.text });
  }
  const rules = functions.filter((fn) => fn.of.rule !== undefined);
  if (rules.length > 0) {
    const list = model.rules.map((rule, index) => ({ fields: rule.fields, message: rule.message, check: code(`checkRule${index + 1}`) }));
    const type = `readonly { readonly fields: readonly string[]; readonly message: string; readonly check: (record: ${names.values}) => boolean }[]`;
    file.addConst({
      name: 'rules',
      docs: 'The rules, in declaration order: what a failure names and says, and its check.',
      type,
      initializer: literal(list, 0, `const rules: ${type} = `.length),
    });
  }
  const computeBody =
    computed.length === 0
      ? [lineComment(`${capitalised(plural(phrase))} have no computed fields.`)]
      : [
          ...model.lines.flatMap((list) => {
            const ofList = computed.filter((fn) => fn.of.lines === list.name);
            if (ofList.length === 0) return [];
            return [
              `for (const line of record.${list.name} as Record<string, unknown>[]) {`,
              ...ofList.map((fn) => `  line.${fn.of.field} = ${fn.name}(line as unknown as ${names.lineValues(list)});`),
              '}',
            ];
          }),
          ...computed.filter((fn) => fn.of.lines === undefined).map((fn) => `record.${fn.of.field} = ${fn.name}(record as unknown as ${names.values});`),
        ];
  const failedRules =
    rules.length === 0
      ? 'failedRules: () => [],'
      : `failedRules(record) {\n    const values = record as unknown as ${names.values};\n    return rules.filter((rule) => !rule.check(values)).map(({ fields, message }) => ({ fields, message }));\n  },`;
  file.addConst({
    name: names.logic,
    isExported: true,
    docs: `The logic of \`${model.name}\`: its computed fields (each line's first, then the record's, in declaration order but after the computed fields each reads) and its rules.`,
    type: 'ModelLogic',
    initializer: `{\n  version: ${quote(logicVersion(computed))},\n  compute(${computed.length === 0 ? '' : 'record'}) {\n${computeBody.map((line) => `    ${line}`).join('\n')}\n  },\n  ${failedRules}\n}`,
  });
}

/**
 * What names the computed fields' functions: a hash of each one's place and source, in compute
 * order; `''` without computed fields. A database whose values were computed by other functions
 * is recomputed (`ModelLogic.version`).
 */
function logicVersion(computed: readonly LogicFunction[]): string {
  if (computed.length === 0) return '';
  const hash = createHash('sha256');
  for (const fn of computed) hash.update(`${fn.of.lines ?? ''}.${fn.of.field ?? ''}\n${fn.source.text}\n`);
  return hash.digest('hex').slice(0, 16);
}

function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function withThe(phrase: string): string {
  return `the ${phrase}`;
}

export const emitLogic: Emitter = (context) => [
  ...context.ir.modules.flatMap((module) =>
    module.models.map((model): PlannedFile => {
      const path = `${modelBase(model)}.logic.ts`;
      return { path, source: module.source, build: (file) => buildLogicFile(context, model, path, file) };
    }),
  ),
  {
    path: 'logic.ts',
    source: projectSource(context.ir.modulesDirName),
    build(file) {
      const models = allModels(context.ir);
      file.addImportDeclaration({ isTypeOnly: true, moduleSpecifier: context.runtimeImport('logic.ts', 'registry.ts'), namedImports: ['ModelLogic'] });
      for (const model of models) {
        file.addImportDeclaration({ moduleSpecifier: `./${modelBase(model)}.logic.ts`, namedImports: [logicNames(model).logic] });
      }
      file.addConst({
        isExported: true,
        docs:
          "Every model's computed fields and rules, by model name. The web app bundles this file to show computed values while a record is typed: it imports nothing of the runtime but its types.",
        name: 'logic',
        type: 'Readonly<Record<string, ModelLogic>>',
        initializer: literal(Object.fromEntries(models.map((model) => [model.name, code(logicNames(model).logic)]))),
      });
    },
  },
];

/** The head of a logic function's declaration, as `SourceText` prints it: the copy follows it. */
export function declarationHead(fn: LogicFunction): string {
  return `const ${fn.name}: ${fn.type} = `;
}
