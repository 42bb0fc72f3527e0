/** `roles.ts`: the command ids each role may use, `admin` first with all of them. */
import { projectSource, type Emitter } from './context.ts';
import { literal } from './print.ts';

export const emitRoles: Emitter = (context) => [
  {
    path: 'roles.ts',
    source: projectSource(context.ir.modulesDirName),
    build(file) {
      const roles = Object.fromEntries(context.ir.roles.map((role) => [role.name, role.commands]));
      file.addConst({
        isExported: true,
        docs: 'The command ids each role may use. `admin` is built in and may use every command.',
        name: 'roles', type: 'Readonly<Record<string, readonly string[]>>', initializer: literal(roles),
      });
    },
  },
];
