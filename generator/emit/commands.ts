/** `<module>/<model>.commands.ts`: the model's commands (catalogue entry, approval rule, input schema). */
import type { ModelIR } from '../ir.ts';
import { modelBase, modelExports, type EmitContext, type Emitter, type PlannedFile } from './context.ts';
import { inputSchemaName } from './inputs.ts';
import { actionConstName } from './model.ts';
import { code, literal } from './print.ts';
import type { SourceText } from './source.ts';

function buildCommandsFile(context: EmitContext, model: ModelIR, path: string, file: SourceText): void {
  file.addImportDeclaration({ isTypeOnly: true, moduleSpecifier: context.runtimeImport(path, 'registry.ts'), namedImports: ['CommandMeta'] });
  if (model.actions.length > 0) {
    file.addImportDeclaration({ moduleSpecifier: `./${model.name}.model.ts`, namedImports: model.actions.map((action) => actionConstName(model, action)) });
  }
  file.addImportDeclaration({
    moduleSpecifier: `./${model.name}.schemas.ts`,
    namedImports: model.commands.map((command) => inputSchemaName(model, command)),
  });
  const commands = model.commands.map((command) => ({
    id: command.id,
    model: command.model,
    name: command.name,
    kind: command.kind,
    description: command.description,
    needsApproval: command.needsApproval,
    input: code(inputSchemaName(model, command)),
    action: command.action ? code(actionConstName(model, command.action)) : undefined,
  }));
  file.addConst({
    isExported: true,
    docs: `The commands of \`${model.name}\`: the generated ones, its actions, then ${model.commands.some((command) => command.kind === 'erase') ? 'history, revert and erase' : 'history and revert'}.`,
    name: modelExports(model).commands, type: 'readonly CommandMeta[]', initializer: literal(commands),
  });
}

export const emitCommands: Emitter = (context) =>
  context.ir.modules.flatMap((module) =>
    module.models.map((model): PlannedFile => {
      const path = `${modelBase(model)}.commands.ts`;
      return { path, source: module.source, build: (file) => buildCommandsFile(context, model, path, file) };
    }),
  );
