#!/usr/bin/env node
// The CLI is written in TypeScript; tsx runs it (and the modules and generated code it loads)
// without a separate compile step, so `rmsgen build` output is usable at once.
import { register } from 'tsx/esm/api';

register();
await import('./cli.ts');
