/**
 * "Export CSV": every page of the list as it is filtered and sorted, fetched with progress, then
 * downloaded; a model with line lists downloads one more file per list (`orders-items-….csv`), one
 * row per line.
 */
import { useState } from 'preact/hooks';
import { download, exportFileName, fetchAllRows, linesCsv, modelPages, recordsCsv } from '../lib/export.ts';
import { errorMessage } from '../lib/page.ts';
import type { FilterCondition, ModelInfo, OrderKey } from '../lib/types.ts';
import { useMeta } from '../lib/meta.ts';

export function CsvExport({ model, plural, filter, order }: { model: ModelInfo; plural: string; filter: readonly FilterCondition[]; order: readonly OrderKey[] }) {
  const meta = useMeta();
  const [progress, setProgress] = useState<{ done: number; total: number | null } | null>(null);

  async function exportCsv() {
    setProgress({ done: 0, total: null });
    try {
      const rows = await fetchAllRows(modelPages(model, filter, order), (done, total) => setProgress({ done, total }));
      download(recordsCsv(model, rows), exportFileName(plural));
      for (const list of model.lines) download(linesCsv(model, list, rows), exportFileName(plural, `-${list.name.replace(/_/g, '-')}`));
      meta.notify(`Exported ${rows.length.toLocaleString('en-US')} ${rows.length === 1 ? model.label.toLowerCase() : plural.toLowerCase()} to CSV.`);
    } catch (caught) {
      meta.notify(`Could not export: ${errorMessage(caught)}`, 'error');
    } finally {
      setProgress(null);
    }
  }

  return (
    <button type="button" class="btn" disabled={progress !== null} onClick={() => void exportCsv()}>
      {progress === null ? 'Export CSV' : progress.total === null ? 'Exporting…' : `Exporting ${progress.done.toLocaleString('en-US')} of ${progress.total.toLocaleString('en-US')}…`}
    </button>
  );
}
