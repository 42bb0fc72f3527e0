/**
 * The planner's view of a table's rows. Planning stays pure and synchronous: a fact inspection
 * has not answered yet interrupts planning the column (or table) that needs it, and the question is
 * collected; migrate answers the questions and plans again (see inspectAndPlan in ../migrate.ts).
 * So the database only ever counts what a decision depends on.
 */
import type { DataQuestion, InspectedTable, ValueCount } from './inspected.ts';

export class StoredData {
  constructor(
    readonly table: string,
    private readonly known: InspectedTable,
  ) {}

  rows(): number {
    return this.known.rows ?? unanswered({ kind: 'rows', table: this.table });
  }

  /** How many rows hold a value in `column`. */
  filled(column: string): number {
    if (this.rows() === 0) return 0;
    return this.known.filled.get(column) ?? unanswered({ kind: 'filled', table: this.table, column });
  }

  /** Up to five values `column` holds that are not among `options`. */
  valuesOutside(column: string, options: readonly string[]): readonly ValueCount[] {
    if (this.rows() === 0) return [];
    return this.known.valuesOutside.get(column) ?? unanswered({ kind: 'values-outside', table: this.table, column, options });
  }

  /** Up to five values (joined by `, ` for several columns) that several rows hold in `columns`: what a unique index would refuse. */
  duplicates(columns: readonly string[]): readonly ValueCount[] {
    if (this.rows() === 0) return [];
    return this.known.duplicates?.get(columns.join(',')) ?? unanswered({ kind: 'duplicates', table: this.table, columns });
  }

  /** Which of `values` rows hold in `column` (`list`: a multiselect's, a JSON array of them). */
  valuesUsed(column: string, values: readonly string[], list = false): readonly ValueCount[] {
    if (this.rows() === 0) return [];
    return this.known.valuesUsed.get(column) ?? unanswered({ kind: 'values-used', table: this.table, column, values, list });
  }
}

class UnansweredQuestion extends Error {
  constructor(readonly question: DataQuestion) {
    super(`unanswered: ${JSON.stringify(question)}`);
  }
}

function unanswered(question: DataQuestion): never {
  throw new UnansweredQuestion(question);
}

/** Runs `decide`; when it needs a fact not yet inspected, adds the question to `questions` instead. */
export function asking(questions: DataQuestion[], decide: () => void): void {
  try {
    decide();
  } catch (error) {
    if (!(error instanceof UnansweredQuestion)) throw error;
    questions.push(error.question);
  }
}
