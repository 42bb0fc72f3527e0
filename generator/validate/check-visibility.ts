/**
 * What a field shows must not show more than the fields it comes from. A computed field is served
 * as any field is: one worked out from a personal field (`shout: (c) => c.name.toUpperCase()`)
 * would give agents in clear what they see only masked, and one from a field hidden from agents
 * or read by some roles only, what those callers may not read. And a governed select's state is
 * named in the refusals of its actions and of its locked states (`<model>.<field> is approved;
 * approve needs new`), so it cannot be kept from whoever runs them.
 */
import { readsField } from '../definition-source.ts';
import type { FieldDraft, ModelDraft } from './drafts.ts';
import type { ProblemList, Report } from './problem-list.ts';

export function checkVisibility(model: ModelDraft, problems: ProblemList): void {
  const written = model.module.written;
  const source = model.module.source;
  const modelReport = (field: FieldDraft): Report => {
    const line = written.lineOf(['models', model.name, 'fields', field.name]);
    return (problem) => problems.at(source, { model: model.name, field: field.name })({ line, ...problem });
  };
  checkComputed(model.fields, modelReport);
  for (const list of model.lines) {
    const report = (field: FieldDraft): Report => {
      const line = written.lineOf(['models', model.name, 'lines', list.name, 'fields', field.name]);
      return (problem) => problems.at(source, { model: model.name, lines: list.name, field: field.name })({ line, ...problem });
    };
    checkComputed(list.fields, report);
  }
  for (const field of model.fields) {
    if (field.kind !== 'select' || field.governed !== true) continue;
    const kept = [...(field.personal ? ['personal'] : []), ...(field.agents === 'hidden' ? ["agents: 'hidden'"] : []), ...(field.read !== undefined ? ['read'] : [])];
    if (kept.length === 0) continue;
    modelReport(field)({
      code: 'governed-not-kept',
      message: `a governed field's state is named in the refusals of its actions and locked states, so it cannot be kept from who runs them (${kept.join(', ')})`,
      fix: `remove ${kept.join(' and ')}`,
    });
  }
}

/** Each computed field of `fields` against the fields (of the same record or line) its function reads. */
function checkComputed(fields: readonly FieldDraft[], reportOn: (field: FieldDraft) => Report): void {
  for (const computed of fields) {
    if (computed.logic === undefined) continue;
    for (const read of fields) {
      if (read === computed || !readsField(computed.logic.text, read.name)) continue;
      const report = reportOn(computed);
      if (read.personal && !computed.personal && computed.agents !== 'hidden') {
        report({
          code: 'computed-shows-personal',
          message: `computed from personal field ${read.name}: agents would read in clear what they see of ${read.name} only masked`,
          fix: "add personal: true (or agents: 'hidden')",
        });
      }
      if (read.agents === 'hidden' && computed.agents !== 'hidden') {
        report({ code: 'computed-shows-hidden', message: `computed from ${read.name}, which is hidden from agents: they would read what it holds`, fix: "add agents: 'hidden'" });
      }
      const beyond = read.read === undefined ? [] : computed.read === undefined ? ['every role'] : computed.read.filter((role) => !read.read!.includes(role));
      if (beyond.length > 0) {
        report({
          code: 'computed-shows-unreadable',
          message: `computed from ${read.name}, which only ${read.read!.join(', ')} may read: ${beyond.join(', ')} would read what it holds`,
          fix: `give it read: [${read.read!.map((role) => `'${role}'`).join(', ')}] or fewer roles`,
        });
      }
    }
  }
}
