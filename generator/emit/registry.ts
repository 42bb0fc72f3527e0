/** `registry.ts`: everything, as the runtime's `Registry` (runtime/registry.ts): what the server's entry point loads. */
import { allModels } from '../ir.ts';
import { modelBase, modelExports, projectSource, type Emitter } from './context.ts';
import { code, literal } from './print.ts';

export const emitRegistry: Emitter = (context) => [
  {
    path: 'registry.ts',
    source: projectSource(context.ir.modulesDirName),
    build(file) {
      const models = allModels(context.ir);
      file.addImportDeclaration({ isTypeOnly: true, moduleSpecifier: context.runtimeImport('registry.ts', 'registry.ts'), namedImports: ['OpenApiDocument', 'Registry'] });
      file.addImportDeclaration({ moduleSpecifier: context.runtimeImport('registry.ts', 'generated-json.ts'), namedImports: ['jsonFileOnDemand'] });
      for (const model of models) {
        const names = modelExports(model);
        file.addImportDeclaration({ moduleSpecifier: `./${modelBase(model)}.commands.ts`, namedImports: [names.commands] });
        file.addImportDeclaration({ moduleSpecifier: `./${modelBase(model)}.model.ts`, namedImports: [names.model] });
        file.addImportDeclaration({ moduleSpecifier: `./${modelBase(model)}.queries.ts`, namedImports: [names.queries] });
        file.addImportDeclaration({ moduleSpecifier: `./${modelBase(model)}.tools.ts`, namedImports: [names.tools] });
      }
      file.addImportDeclaration({ moduleSpecifier: './logic.ts', namedImports: ['logic'] });
      file.addImportDeclaration({ moduleSpecifier: './roles.ts', namedImports: ['roles'] });
      const spread = (pick: (names: ReturnType<typeof modelExports>) => string) => `[${models.map((model) => `...${pick(modelExports(model))}`).join(', ')}]`;
      const registry = {
        modules: context.ir.modules.map((module) => ({
          name: module.name,
          label: module.label,
          description: module.description,
          dependsOn: module.dependsOn,
          models: module.declaredModels,
        })),
        models: Object.fromEntries(models.map((model) => [model.name, code(modelExports(model).model)])),
        queries: Object.fromEntries(models.map((model) => [model.name, code(modelExports(model).queries)])),
        logic: code('logic'),
        commands: models.length === 0 ? {} : code(`Object.fromEntries(${spread((names) => names.commands)}.map((command) => [command.id, command]))`),
        roles: code('roles'),
        tools: models.length === 0 ? {} : code(`Object.fromEntries(${spread((names) => names.tools)}.map((tool) => [tool.name, tool]))`),
        openapi: code("jsonFileOnDemand<OpenApiDocument>(new URL('./openapi.json', import.meta.url))"),
      };
      file.addConst({
        isExported: true,
        docs: 'Everything the runtime serves: modules and models in dependency order with their queries and logic, commands in catalogue order, roles, MCP tools and the OpenAPI document.',
        name: 'registry', type: 'Registry', initializer: literal(registry),
      });
    },
  },
];
