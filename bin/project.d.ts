/** See bin/project.js. */
export interface Project {
  /** The folder holding the project's modules/, generated/ and dist/server/. */
  readonly root: string;
  /** True for a service of its own (`rmsgen init`), false for the rmsgen package itself. */
  readonly service: boolean;
}

export function findProject(from: string, packageRoot: string): Project;

/** See bin/project.js. */
export const SERVER_COMMANDS: ReadonlySet<string>;
