/**
 * The tables a design has: each model's, and each of its line lists' (`<model>__<lines>`). A line
 * list's table is planned like a model's — its columns, indexes and snapshot — through a model of
 * its own, named after the table, whose fields are the line list's.
 */
import type { ModelMeta, Registry } from '../../registry.ts';

export function tableModels(design: Pick<Registry, 'models'>): ModelMeta[] {
  return Object.values(design.models).flatMap((model) => [model, ...model.lines.map((list) => lineTableModel(model, list.name))]);
}

/** The models tableModels made for line lists' tables. */
const LINE_TABLE_MODELS = new WeakSet<ModelMeta>();

/** Whether the table is a model's, which lists read in order (index-design.ts, `indexesOf`), not a line list's. */
export function isListedTable(model: ModelMeta): boolean {
  return !LINE_TABLE_MODELS.has(model);
}

function lineTableModel(model: ModelMeta, name: string): ModelMeta {
  const list = model.lines.find((candidate) => candidate.name === name)!;
  const lineModel: ModelMeta = {
    name: list.table.name,
    module: model.module,
    label: list.label,
    description: list.description,
    table: list.table,
    titleField: 'id',
    fields: list.fields,
    actions: [],
    referencedBy: [],
    lines: [],
    uniques: [],
    rules: [],
  };
  LINE_TABLE_MODELS.add(lineModel);
  return lineModel;
}
