/** Where tsc keeps its state for `config` (both relative to the project). */
export function tscStateFile(config: string): string;
/** The node arguments that run tsc on `config` (a path relative to the project, its working directory). */
export function tscCommand(config: string): string[];
