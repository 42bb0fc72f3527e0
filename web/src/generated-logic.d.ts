/**
 * The project's generated/logic.ts, as the app's build resolves `rmsgen:generated-logic`
 * (web/build.ts): every model's logic by model name. Declared here rather than imported by path so
 * that the app type-checks without the server's types the generated code is written against; the
 * build fails when the generated module lacks the export.
 */
declare module 'rmsgen:generated-logic' {
  import type { BrowserLogic } from './lib/logic.ts';

  export const logic: Readonly<Record<string, BrowserLogic>>;
}
