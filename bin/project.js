// The project rmsgen works on: the rmsgen package itself (its modules/, generated/ and dist/server/),
// or a service of its own (`rmsgen init`): a folder whose package.json depends on rmsgen, holding
// its own modules/, generated/ and dist/server/ and running this package's runtime and web app.
//
// Plain JavaScript with node: imports only, shared by bin/rmsgen.js (which picks the compiled
// server to run before any TypeScript loads) and the TypeScript CLI and compiled server (through
// bin/outputs.ts), so that all of them agree on the project. Types: bin/project.d.ts.
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/**
 * The project of the nearest folder, from `from` upwards, that holds a package.json: a service
 * when that package.json lists `rmsgen` among its dependencies (and is not this package's own),
 * else this package.
 *
 * @param {string} from
 * @param {string} packageRoot
 * @returns {{ root: string, service: boolean }}
 */
export function findProject(from, packageRoot) {
  for (let dir = resolve(from); ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      if (dependsOnRmsgen(manifest) && realPath(dir) !== realPath(packageRoot)) return { root: dir, service: true };
      break;
    }
    if (dirname(dir) === dir) break;
  }
  return { root: resolve(packageRoot), service: false };
}

/** @param {string} manifest */
function dependsOnRmsgen(manifest) {
  let json;
  try {
    json = JSON.parse(readFileSync(manifest, 'utf8'));
  } catch {
    return false;
  }
  if (json === null || typeof json !== 'object') return false;
  return ['dependencies', 'devDependencies'].some((key) => json[key] !== null && typeof json[key] === 'object' && typeof json[key].rmsgen === 'string');
}

/** @param {string} path */
function realPath(path) {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/**
 * The first words of the server's commands (runtime/cli.ts registers them): bin/rmsgen.js runs these
 * compiled (dist/server/), everything else through the TypeScript CLI. A server command missing
 * here would still work, but load tsx and the runtime from source each time (test/cli/commands.test.ts
 * checks the two lists agree).
 */
export const SERVER_COMMANDS = new Set(['serve', 'migrate', 'seed', 'history', 'audit', 'user', 'backup', 'restore']);
