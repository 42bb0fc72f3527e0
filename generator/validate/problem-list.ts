/** Collects the problems validation finds, each with its file and location, in the order they are reported to people. */
import type { Problem, ProblemLocation, ProblemReport } from '../problems.ts';

/** A problem as a check reports it: at the location its reporter was made for, on this line of the file when it is known. */
export type LocatedReport = ProblemReport & { readonly line?: number | undefined };

/** Reports one problem at the location it was made for. */
export type Report = (report: LocatedReport) => void;

export class ProblemList {
  private readonly found: Problem[] = [];

  /** A reporter for problems in `file` at `location`. */
  at(file: string, location: ProblemLocation = {}): Report {
    return ({ line, ...report }) => this.found.push({ file, ...(line === undefined ? location : { line, ...location }), ...report });
  }

  get isEmpty(): boolean {
    return this.found.length === 0;
  }

  /** Grouped by file (files by name), in found order within a file. */
  get inReportOrder(): Problem[] {
    const files = [...new Set(this.found.map((problem) => problem.file))].sort();
    return files.flatMap((file) => this.found.filter((problem) => problem.file === file));
  }
}
