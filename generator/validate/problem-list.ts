/** Collects the problems validation finds, each with its file and location, in the order they are reported to people. */
import type { Problem, ProblemLocation, ProblemReport } from '../problems.ts';

/** Reports one problem at the location it was made for. */
export type Report = (report: ProblemReport) => void;

export class ProblemList {
  private readonly found: Problem[] = [];

  /** A reporter for problems in `file` at `location`. */
  at(file: string, location: ProblemLocation = {}): Report {
    return (report) => this.found.push({ file, ...location, ...report });
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
