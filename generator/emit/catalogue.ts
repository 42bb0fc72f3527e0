/** `catalogue.ts`: every command as `GET /api/commands` lists it (SPEC 2.5). */
import { VariableDeclarationKind } from 'ts-morph';
import { allCommands } from '../ir.ts';
import { projectSource, type Emitter } from './context.ts';
import { literal } from './print.ts';

export const emitCatalogue: Emitter = (context) => [
  {
    path: 'catalogue.ts',
    source: projectSource(context.ir.modulesDirName),
    build(file) {
      const entries = allCommands(context.ir).map((command) => ({ id: command.id, description: command.description, needs_approval: command.needsApproval }));
      file.addVariableStatement({
        isExported: true,
        declarationKind: VariableDeclarationKind.Const,
        docs: ['Every command as `GET /api/commands` lists it (SPEC 2.5), in module, model and command order.'],
        declarations: [{ name: 'commandCatalogue', initializer: `${literal(entries)} as const` }],
      });
    },
  },
];
