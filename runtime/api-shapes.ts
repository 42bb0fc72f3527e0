/**
 * The JSON shapes of the HTTP API, declared once for both of its sides: the runtime annotates the
 * answers it sends with them, and the web app (web/src) reads the answers through them, so that
 * renaming a field here fails `tsc` on both sides.
 *
 * The shapes live in shapes/, one file per part of the API; this module is the one name both
 * sides import them by.
 *
 * These modules import only types, and only from modules that import nothing themselves: esbuild
 * bundles it into the web app, which must not pull zod or anything server-side. Keep it to types
 * and plain constants. Names follow the JSON
 * (snake_case), not the runtime's camelCase registry (runtime/registry.ts).
 *
 * Naming: `…Answer` is the whole body of one endpoint's answer; `…Info` is an item inside one.
 */

export * from './shapes/values.ts';
export * from './shapes/meta.ts';
export * from './shapes/commands.ts';
export * from './shapes/trails.ts';
export * from './shapes/auth-and-audit.ts';
export * from './shapes/webhooks.ts';
