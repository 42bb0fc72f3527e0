// Loader hooks of record-modules.mjs: appends each resolved module URL to the file it is given.
import { appendFileSync } from 'node:fs';

let file;

export function initialize(data) {
  file = data.file;
}

export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  appendFileSync(file, `${resolved.url}\n`);
  return resolved;
}
