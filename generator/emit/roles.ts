/** `roles.ts`: the command ids each role may use, `admin` first with all of them. */
import { VariableDeclarationKind } from 'ts-morph';
import { projectSource, type Emitter } from './context.ts';
import { literal } from './print.ts';

export const emitRoles: Emitter = (context) => [
  {
    path: 'roles.ts',
    source: projectSource(context.ir.modulesDirName),
    build(file) {
      const roles = Object.fromEntries(context.ir.roles.map((role) => [role.name, role.commands]));
      file.addVariableStatement({
        isExported: true,
        declarationKind: VariableDeclarationKind.Const,
        docs: ['The command ids each role may use. `admin` is built in and may use every command.'],
        declarations: [{ name: 'roles', type: 'Readonly<Record<string, readonly string[]>>', initializer: literal(roles) }],
      });
    },
  },
];
