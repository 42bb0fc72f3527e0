/**
 * Entry of the compiled server (dist/server/rmsgen-server.js, built by bin/compile.ts; bin/rmsgen.js
 * imports it for `serve`, `migrate` and `user …`). Only the server's commands: the generator,
 * ts-morph, TypeScript and esbuild are not part of this bundle and never loaded.
 */
import { logUnexpectedError } from '../runtime/errors.ts';
import { exitOnError } from './exit.ts';
import { createProgram } from './program.ts';
import { registerServerCommands } from './server-cli.ts';

const program = createProgram();
registerServerCommands(program, { checkBuild: true });
await program.parseAsync(process.argv).catch((error: unknown) => exitOnError(error, logUnexpectedError));
