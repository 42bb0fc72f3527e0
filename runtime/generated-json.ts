/**
 * A JSON file `rmsgen build` writes beside the registry (generated/openapi.json), read when it is
 * first wanted rather than bundled into the server: at about 100 kB a model it is the largest
 * generated file, and most processes never need it (a server nobody asks for its OpenAPI
 * document, every CLI command). The compiled server reads the file from generated/, where the
 * build left it (bin/compile.ts rewrites `import.meta.url` to each source's own place).
 */
import { readFile } from 'node:fs/promises';

/** Reads and parses the file at the first call; later calls share that result. A failed read is tried again next time. */
export function jsonFileOnDemand<T>(file: URL): () => Promise<T> {
  let parsed: Promise<T> | undefined;
  return () => {
    parsed ??= readFile(file, 'utf8')
      .then((text) => JSON.parse(text) as T)
      .catch((error: unknown) => {
        parsed = undefined;
        throw error;
      });
    return parsed;
  };
}
