/** Module dependencies: each dependsOn entry names another module once, and no module depends on itself through others. */
import { unknownNameHint } from '../suggest.ts';
import type { ProjectDraft } from './drafts.ts';
import type { ProblemList } from './problem-list.ts';

export interface ModuleDependencies {
  /** Each module's dependsOn entries that name another module, once each, in written order. */
  readonly direct: ReadonlyMap<string, readonly string[]>;
  /** The modules each module depends on, directly or not: whose models it may refer to. */
  readonly reachable: ReadonlyMap<string, ReadonlySet<string>>;
}

export function checkDependencies(project: ProjectDraft, problems: ProblemList): ModuleDependencies {
  const direct = new Map<string, string[]>();
  for (const module of project.modules) {
    const report = problems.at(module.source, { key: 'dependsOn' });
    const valid: string[] = [];
    for (const dependency of module.def.dependsOn ?? []) {
      if (dependency === module.name) {
        report({ code: 'self-dependency', message: `module ${module.name} depends on itself`, fix: `remove "${dependency}"` });
      } else if (!project.moduleNames.includes(dependency)) {
        const others = project.moduleNames.filter((name) => name !== module.name);
        report({ code: 'unknown-dependency', message: `unknown module "${dependency}"`, fix: unknownNameHint(dependency, others, 'modules') });
      } else if (valid.includes(dependency)) {
        report({ code: 'duplicate-dependency', message: `module "${dependency}" is listed twice`, fix: 'remove one' });
      } else {
        valid.push(dependency);
      }
    }
    direct.set(module.name, valid);
  }
  for (const cycle of findCycles(project.modules.map((module) => module.name), direct)) {
    const module = project.modules.find((candidate) => candidate.name === cycle[0]);
    if (!module) continue;
    problems.at(module.source, { key: 'dependsOn' })({
      code: 'dependency-cycle',
      message: `cyclic module dependency ${cycle.join(' → ')}`,
      fix: 'remove one of these dependsOn entries',
    });
  }
  const reachable = new Map(project.modules.map((module) => [module.name, reachableFrom(module.name, direct)]));
  return { direct, reachable };
}

function reachableFrom(start: string, direct: ReadonlyMap<string, readonly string[]>): Set<string> {
  const seen = new Set<string>();
  const stack = [...(direct.get(start) ?? [])];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    if (seen.has(next)) continue;
    seen.add(next);
    stack.push(...(direct.get(next) ?? []));
  }
  return seen;
}

/** Each cycle once, as `a → b → a`, starting at its smallest module name. */
function findCycles(names: readonly string[], direct: ReadonlyMap<string, readonly string[]>): string[][] {
  const cycles = new Map<string, string[]>();
  const state = new Map<string, 'visiting' | 'done'>();
  const stack: string[] = [];
  const visit = (name: string): void => {
    state.set(name, 'visiting');
    stack.push(name);
    for (const next of direct.get(name) ?? []) {
      if (state.get(next) === 'visiting') {
        const cycle = stack.slice(stack.indexOf(next));
        const start = cycle.indexOf(cycle.reduce((smallest, candidate) => (candidate < smallest ? candidate : smallest)));
        const rotated = [...cycle.slice(start), ...cycle.slice(0, start)];
        cycles.set(rotated.join(' '), [...rotated, ...rotated.slice(0, 1)]);
      } else if (!state.has(next)) {
        visit(next);
      }
    }
    stack.pop();
    state.set(name, 'done');
  };
  for (const name of names) if (!state.has(name)) visit(name);
  return [...cycles.values()];
}
