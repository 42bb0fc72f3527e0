// How the project runs tsc on one of its programs, for `npm run typecheck` (scripts/typecheck.mjs)
// and for the copy of the project in test/project/changed-modules.test.ts.
//
// Incremental: each program's state is kept in dist/typecheck/<config>.tsbuildinfo, so that a run
// after a change checks again only what the change can affect (tsc compares the files' contents,
// not their times). The copy starts from this checkout's state. Symlinks are preserved, by node
// (tsc's own lib files) and by tsc (packages), so that files are named by their path under
// node_modules rather than by where a link leads: the state of this checkout then names the same
// files in a copy whose node_modules is a link to this one.

/** Where tsc keeps its state for `config` (both relative to the project). */
export function tscStateFile(config) {
  return `dist/typecheck/${config.replaceAll('/', '-').replace(/\.json$/, '')}.tsbuildinfo`;
}

/** The node arguments that run tsc on `config` (a path relative to the project, its working directory). */
export function tscCommand(config) {
  return ['--preserve-symlinks', '--preserve-symlinks-main', 'node_modules/typescript/bin/tsc', '--noEmit', '-p', config, '--incremental', '--tsBuildInfoFile', tscStateFile(config), '--preserveSymlinks'];
}
