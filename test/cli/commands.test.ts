/**
 * Which commands bin/rmsgen.js runs compiled: every command the server's CLI registers (runtime/cli.ts,
 * through bin/server-cli.ts) and nothing else. One missing would load tsx and the runtime from
 * source at each run (a second or two of CPU instead of a tenth); one too many would send a
 * generator command to a bundle that does not have it.
 */
import { expect, it } from 'vitest';
import { SERVER_COMMANDS } from '../../bin/project.js';
import { createProgram } from '../../bin/program.ts';
import { registerServerCommands } from '../../bin/server-cli.ts';

it("bin/rmsgen.js runs compiled exactly the server's commands", () => {
  const program = createProgram();
  registerServerCommands(program, { checkBuild: false });
  expect([...SERVER_COMMANDS].sort()).toEqual(program.commands.map((command) => command.name()).sort());
});
