/**
 * The app: sign-in when there is no session; otherwise the person's meta (what they may see)
 * is loaded and the shell (top bar, navigation by module and model, pages) is built from it.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, get, onSessionChange, sessionToken, signOut } from './lib/api.ts';
import { MetaContext, can, useMeta, withLookups, type AppMeta } from './lib/meta.ts';
import { errorMessage, pluralLabel } from './lib/page.ts';
import { matchRoute, navigate, onLinkClick, paths, useLocation, type Route } from './lib/router.ts';
import { loadService, serviceName } from './lib/service.ts';
import { forgetTitles } from './lib/titles.ts';
import type { Meta, PlansAnswer } from './lib/types.ts';
import { ApprovalsPage } from './pages/approvals.tsx';
import { AuditPage } from './pages/audit.tsx';
import { HomePage } from './pages/home.tsx';
import { ImportPage } from './pages/import.tsx';
import { ListPage } from './pages/list.tsx';
import { NotFound } from './pages/not-found.tsx';
import { RecordFormPage } from './pages/record-form.tsx';
import { RecordPage } from './pages/record.tsx';
import { SignInPage } from './pages/sign-in.tsx';
import { TokensPage } from './pages/tokens.tsx';
import { WebhooksPage } from './pages/webhooks.tsx';

export function App() {
  // What the service calls itself comes first: the sign-in page shows its name and colour.
  const [serviceLoaded, setServiceLoaded] = useState(false);
  useEffect(() => {
    void loadService().then(() => setServiceLoaded(true));
  }, []);
  const [token, setToken] = useState(sessionToken);
  const [notice, setNotice] = useState<string | null>(null);
  // A session that expired keeps the page under the sign-in (what was typed in a form stays), and
  // the same person signing in again continues it; anyone else, or a sign-out, starts afresh.
  const [expired, setExpired] = useState(false);
  const [generation, setGeneration] = useState(0);
  useEffect(
    () =>
      onSessionChange((reason) => {
        setToken(sessionToken());
        forgetTitles();
        setExpired(reason === 'expired');
        if (reason !== 'expired' && reason !== 'signed-in-again') setGeneration((current) => current + 1);
        if (reason === 'expired') setNotice('Your session has expired. Please sign in again.');
        else if (reason === 'signed-out') setNotice('You have signed out.');
        else setNotice(null);
      }),
    [],
  );
  if (!serviceLoaded) return null;
  if (!token && !expired) return <SignInPage notice={notice} />;
  return (
    <>
      <div class="signed-in" inert={expired} aria-hidden={expired ? 'true' : undefined}>
        <SignedIn key={generation} />
      </div>
      {expired && (
        <div class="session-over">
          <SignInPage notice={notice} />
        </div>
      )}
    </>
  );
}

const PENDING_POLL_MS = 30_000;

function SignedIn() {
  const [meta, setMeta] = useState<Meta | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [attempt, setAttempt] = useState(0);
  const [pendingCount, setPendingCount] = useState<number | null>(null);
  const [pendingTick, setPendingTick] = useState(0);
  const [notice, setNotice] = useState<{ message: string; tone: 'success' | 'error'; id: number } | null>(null);

  useEffect(() => {
    let live = true;
    setError(null);
    get<Meta>('/api/meta').then(
      (data) => live && setMeta(data),
      (caught: unknown) => {
        if (live && !(caught instanceof ApiError && caught.status === 401)) setError(errorMessage(caught));
      },
    );
    return () => {
      live = false;
    };
  }, [attempt]);

  useEffect(() => {
    // The inbox is polled for its badge only for a person it can hold plans for.
    if (!meta || meta.decides_plans === false) return;
    let live = true;
    const refresh = () =>
      get<PlansAnswer>('/api/plans').then(
        (data) => live && setPendingCount(data.plans.filter((plan) => plan.status === 'pending').length),
        () => live && setPendingCount(null),
      );
    void refresh();
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') void refresh();
    }, PENDING_POLL_MS);
    const onVisible = () => {
      if (document.visibilityState === 'visible') void refresh();
    };
    document.addEventListener('visibilitychange', onVisible);
    return () => {
      live = false;
      clearInterval(timer);
      document.removeEventListener('visibilitychange', onVisible);
    };
  }, [meta, pendingTick]);

  useEffect(() => {
    if (!notice) return;
    const timer = setTimeout(() => setNotice(null), notice.tone === 'error' ? 8000 : 5000);
    return () => clearTimeout(timer);
  }, [notice]);

  if (error) {
    return (
      <div class="center-page">
        <div class="card narrow">
          <h1>{serviceName()}</h1>
          <p class="alert alert-error" role="alert">
            {`Could not load the app: ${error}`}
          </p>
          <div class="row-actions">
            <button type="button" class="btn btn-primary" onClick={() => setAttempt((value) => value + 1)}>
              Try again
            </button>
            <button type="button" class="btn" onClick={() => void signOut()}>
              Sign out
            </button>
          </div>
        </div>
      </div>
    );
  }
  if (!meta) {
    return (
      <div class="center-page" aria-busy="true">
        <p class="muted">Loading…</p>
      </div>
    );
  }
  const app: AppMeta = {
    ...meta,
    ...withLookups(meta),
    pendingCount,
    refreshPending: () => setPendingTick((value) => value + 1),
    reportPending: setPendingCount,
    notify: (message, tone = 'success') => setNotice({ message, tone, id: Date.now() }),
  };
  return (
    <MetaContext.Provider value={app}>
      <Shell notice={notice} onDismiss={() => setNotice(null)} />
    </MetaContext.Provider>
  );
}

function Shell({ notice, onDismiss }: { notice: { message: string; tone: 'success' | 'error'; id: number } | null; onDismiss: () => void }) {
  const meta = useMeta();
  const location = useLocation();
  const route = matchRoute(location.path);
  const [menuOpen, setMenuOpen] = useState(false);
  const mainRef = useRef<HTMLElement>(null);
  const firstRender = useRef(true);

  useEffect(() => {
    if (!menuOpen) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') {
        setMenuOpen(false);
        document.querySelector<HTMLElement>('.menu-toggle')?.focus();
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [menuOpen]);

  useEffect(() => {
    setMenuOpen(false);
    if (firstRender.current) {
      firstRender.current = false;
      return;
    }
    // After navigation, reading continues at the new page's heading.
    const heading = mainRef.current?.querySelector<HTMLElement>('h1');
    if (heading) {
      heading.tabIndex = -1;
      heading.focus({ preventScroll: true });
    }
  }, [location.path]);

  const activeModel = route.page === 'list' || route.page === 'record' || route.page === 'create' || route.page === 'edit' || route.page === 'import' ? route.model : null;
  const navLink = (href: string, label: string, active: boolean, extra?: ComponentChildren) => (
    <a href={href} onClick={onLinkClick} class={active ? 'nav-link active' : 'nav-link'} aria-current={active ? 'page' : undefined}>
      <span>{label}</span>
      {extra}
    </a>
  );

  return (
    <div class={menuOpen ? 'shell menu-open' : 'shell'}>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="topbar">
        <button
          type="button"
          class="btn btn-icon menu-toggle"
          aria-expanded={menuOpen ? 'true' : 'false'}
          aria-controls="sidebar"
          aria-label="Menu"
          onClick={() => setMenuOpen((open) => !open)}
        >
          <span class="burger" aria-hidden="true" />
        </button>
        <a class="brand" href={paths.home()} onClick={onLinkClick}>
          {serviceName()}
        </a>
        <span class="spacer" />
        <span class="whoami" title={meta.caller.roles.join(', ')}>
          <span class="sr-only">Signed in as </span>
          {meta.caller.username}
        </span>
        <button type="button" class="btn btn-quiet" onClick={() => void signOut().then(() => navigate(paths.home(), { replace: true }))}>
          Sign out
        </button>
      </header>
      <nav id="sidebar" class="sidebar" aria-label="Main">
        {meta.modules.map((module) => {
          const models = module.models.map((name) => meta.model(name)).filter((model) => model !== undefined && (can(model, 'search') || can(model, 'list')));
          if (models.length === 0) return null;
          return (
            <div class="nav-group" key={module.name}>
              <h2 class="nav-heading" title={module.description}>
                {module.label}
              </h2>
              <ul>
                {models.map((model) => (
                  <li key={model!.name}>{navLink(paths.list(model!.name), pluralLabel(model!.label), activeModel === model!.name)}</li>
                ))}
              </ul>
            </div>
          );
        })}
        {(meta.decidesPlans || meta.issuesTokens) && (
          <div class="nav-group">
            <h2 class="nav-heading">Agents</h2>
            <ul>
              {meta.decidesPlans && (
                <li>
                  {navLink(
                    paths.approvals(),
                    'Approvals',
                    route.page === 'approvals',
                    // Shown at 0 too (quietly), so "nothing waiting" reads differently from "not known".
                    meta.pendingCount !== null ? (
                      <span class={meta.pendingCount > 0 ? 'badge' : 'badge badge-zero'} aria-label={`${meta.pendingCount} pending`}>
                        {meta.pendingCount}
                      </span>
                    ) : undefined,
                  )}
                </li>
              )}
              {meta.issuesTokens && <li>{navLink(paths.tokens(), 'Agent tokens', route.page === 'tokens')}</li>}
            </ul>
          </div>
        )}
        {meta.isAdmin && (
          <div class="nav-group">
            <h2 class="nav-heading">Admin</h2>
            <ul>
              <li>{navLink(paths.audit(), 'Audit trail', route.page === 'audit')}</li>
              <li>{navLink(paths.webhooks(), 'Webhooks', route.page === 'webhooks')}</li>
            </ul>
          </div>
        )}
      </nav>
      <main id="main" ref={mainRef} tabIndex={-1} onClick={() => menuOpen && setMenuOpen(false)}>
        <div class="notice-area" role="status" aria-live="polite">
          {notice && (
            <div class={`notice notice-${notice.tone}`} key={notice.id}>
              <span>{notice.message}</span>
              <button type="button" class="btn btn-icon" aria-label="Dismiss" onClick={onDismiss}>
                ×
              </button>
            </div>
          )}
        </div>
        <Page route={route} query={location.query} />
      </main>
    </div>
  );
}

function Page({ route, query }: { route: Route; query: URLSearchParams }) {
  const meta = useMeta();
  switch (route.page) {
    case 'home':
      return <HomePage />;
    case 'list': {
      const model = meta.model(route.model);
      if (!model || !(can(model, 'search') || can(model, 'list'))) return <NotFound />;
      return <ListPage key={model.name} model={model} query={query} />;
    }
    case 'import': {
      const model = meta.model(route.model);
      if (!model || !can(model, 'create')) return <NotFound />;
      return <ImportPage key={`${model.name}/import`} model={model} />;
    }
    case 'create': {
      const model = meta.model(route.model);
      if (!model || !can(model, 'create')) return <NotFound />;
      return <RecordFormPage key={`${model.name}/new`} model={model} query={query} />;
    }
    case 'record': {
      const model = meta.model(route.model);
      if (!model || !can(model, 'get')) return <NotFound />;
      return <RecordPage key={`${model.name}/${route.id}`} model={model} id={route.id} />;
    }
    case 'edit': {
      const model = meta.model(route.model);
      if (!model || !can(model, 'update') || !can(model, 'get')) return <NotFound />;
      return <RecordFormPage key={`${model.name}/${route.id}/edit`} model={model} id={route.id} query={query} />;
    }
    case 'approvals':
      return meta.decidesPlans ? <ApprovalsPage /> : <NotFound />;
    case 'tokens':
      return meta.issuesTokens ? <TokensPage /> : <NotFound />;
    case 'audit':
      return meta.isAdmin ? <AuditPage query={query} /> : <NotFound />;
    case 'webhooks':
      return meta.isAdmin ? <WebhooksPage /> : <NotFound />;
    default:
      return <NotFound />;
  }
}
