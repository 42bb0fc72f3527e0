/** The start page: the person's modules and models, with how many records each holds. */
import { changeCount, search, sessionToken } from '../lib/api.ts';
import { can, useMeta } from '../lib/meta.ts';
import { plural } from '../lib/format.ts';
import { pluralLabel, useDocumentTitle, useLoad } from '../lib/page.ts';
import { onLinkClick, paths } from '../lib/router.ts';

/**
 * The counts shown on the cards, kept for a few minutes: each is a `search` the audit trail
 * records, and coming back to the start page should not add a row per model every time. Any
 * change made through the app (`changeCount`) or another session makes them stale.
 */
let cachedCounts: { session: string | null; changes: number; at: number; models: string; counts: Map<string, number | undefined> } | null = null;
const COUNTS_FRESH_MS = 5 * 60_000;

async function recordCounts(models: readonly string[]): Promise<Map<string, number | undefined>> {
  const key = { session: sessionToken(), changes: changeCount(), models: models.join(',') };
  const cached = cachedCounts;
  if (cached && cached.session === key.session && cached.changes === key.changes && cached.models === key.models && Date.now() - cached.at < COUNTS_FRESH_MS) return cached.counts;
  const entries = await Promise.all(models.map(async (model) => [model, (await search(model, { limit: 1 }).catch(() => null))?.total] as const));
  const counts = new Map(entries);
  if (entries.every(([, total]) => total !== undefined)) cachedCounts = { ...key, at: Date.now(), counts };
  return counts;
}

export function HomePage() {
  useDocumentTitle('');
  const meta = useMeta();
  const visible = meta.models.filter((model) => can(model, 'search'));
  const [counts] = useLoad(() => recordCounts(visible.map((model) => model.name)), []);

  return (
    <section class="page">
      <h1>{`Welcome, ${meta.caller.username}`}</h1>
      {meta.pendingCount ? (
        <p class="alert alert-info">
          <a href={paths.approvals()} onClick={onLinkClick}>
            {`${plural(meta.pendingCount, 'agent proposal')} waiting for approval`}
          </a>
        </p>
      ) : null}
      {meta.modules.map((module) => {
        const models = module.models.map((name) => meta.model(name)).filter((model) => model !== undefined && (can(model, 'search') || can(model, 'list')));
        if (models.length === 0) return null;
        return (
          <section class="module" key={module.name} aria-labelledby={`module-${module.name}`}>
            <h2 id={`module-${module.name}`}>{module.label}</h2>
            {module.description && <p class="muted">{module.description}</p>}
            <ul class="cards">
              {models.map((model) => {
                const count = counts.data?.get(model!.name);
                return (
                  <li key={model!.name} class="card card-link">
                    <a href={paths.list(model!.name)} onClick={onLinkClick}>
                      <span class="card-title">{pluralLabel(model!.label)}</span>
                      <span class="card-count">{count === undefined || count === null ? '\u00a0' : plural(count, 'record')}</span>
                    </a>
                    {model!.description && <p class="muted small">{model!.description}</p>}
                  </li>
                );
              })}
            </ul>
          </section>
        );
      })}
      {meta.models.length === 0 && <p class="empty-state">There is nothing here you may see yet. Ask an administrator for a role.</p>}
    </section>
  );
}
