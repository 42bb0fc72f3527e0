/** The start page: the person's modules and models, with how many records each holds. */
import { search } from '../lib/api.ts';
import { can, useMeta } from '../lib/meta.ts';
import { plural } from '../lib/format.ts';
import { pluralLabel, useDocumentTitle, useLoad } from '../lib/page.ts';
import { onLinkClick, paths } from '../lib/router.ts';

export function HomePage() {
  useDocumentTitle('');
  const meta = useMeta();
  const visible = meta.models.filter((model) => can(model, 'search'));
  const [counts] = useLoad(async () => {
    const entries = await Promise.all(visible.map(async (model) => [model.name, (await search(model.name, { limit: 1 }).catch(() => null))?.total] as const));
    return new Map(entries);
  }, []);

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
