/**
 * A small history router: the URL is the state (which page, which list filters), so the back
 * button, reloads and shared links work. The server answers every app path with index.html.
 */
import { useEffect, useState } from 'preact/hooks';

export interface Location {
  readonly path: string;
  readonly query: URLSearchParams;
  /** The fragment with its `#` (`#change-…`), or ''. */
  readonly hash: string;
}

const listeners = new Set<() => void>();

function current(): Location {
  return { path: window.location.pathname, query: new URLSearchParams(window.location.search), hash: window.location.hash };
}

if (typeof window !== 'undefined') {
  const notify = () => {
    for (const listener of listeners) listener();
  };
  window.addEventListener('popstate', notify);
  // A fragment typed into the address bar changes no history state the app made.
  window.addEventListener('hashchange', notify);
}

/**
 * Goes to an app URL in place. A fragment (`#change-…`) is kept; the page that shows what it
 * names scrolls to it (`useFragmentTarget`), since pushState does not. A new page starts at
 * the top; a new fragment on the same page leaves the scrolling to that page.
 */
export function navigate(to: string, options: { replace?: boolean } = {}): void {
  const target = new URL(to, window.location.href);
  const samePage = target.pathname + target.search === window.location.pathname + window.location.search;
  if (samePage && target.hash === window.location.hash) return;
  if (options.replace) window.history.replaceState(null, '', target.pathname + target.search + target.hash);
  else window.history.pushState(null, '', target.pathname + target.search + target.hash);
  for (const listener of listeners) listener();
  if (!options.replace && !samePage) window.scrollTo(0, 0);
}

export function useLocation(): Location {
  const [location, setLocation] = useState(current);
  useEffect(() => {
    const update = () => setLocation(current());
    listeners.add(update);
    // Effects run after the next frame: a navigation between the first render and now (a filter
    // changed on a page that has just appeared) told no listener of this component. Catch up.
    if (!sameLocation(location, current())) update();
    return () => void listeners.delete(update);
  }, []);
  return location;
}

function sameLocation(a: Location, b: Location): boolean {
  return a.path === b.path && a.query.toString() === b.query.toString() && a.hash === b.hash;
}

/** Plain left clicks on app links navigate in place; other clicks (new tab, …) are the browser's. */
export function onLinkClick(event: MouseEvent): void {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  const anchor = (event.currentTarget as HTMLAnchorElement | null) ?? null;
  if (!anchor || anchor.target || anchor.origin !== window.location.origin) return;
  event.preventDefault();
  navigate(anchor.pathname + anchor.search + anchor.hash);
}

/**
 * The id a fragment `#<prefix><id>` names on this page, or null. Pages whose items can be linked
 * to (a record's history entries, an approval plan) read it to show and highlight the item.
 */
export function fragmentId(hash: string, prefix: string): string | null {
  if (!hash.startsWith(`#${prefix}`) || hash.length <= prefix.length + 1) return null;
  try {
    return decodeURIComponent(hash.slice(prefix.length + 1));
  } catch {
    return null;
  }
}

export const paths = {
  home: () => '/',
  list: (model: string, query?: URLSearchParams | string) => {
    const search = query === undefined ? '' : String(query);
    return `/records/${encodeURIComponent(model)}${search ? `?${search}` : ''}`;
  },
  record: (model: string, id: string) => `/records/${encodeURIComponent(model)}/${encodeURIComponent(id)}`,
  /** One entry of a record's history: the record page scrolls to it and highlights it. */
  change: (model: string, id: string, changeId: string) => `/records/${encodeURIComponent(model)}/${encodeURIComponent(id)}#change-${encodeURIComponent(changeId)}`,
  edit: (model: string, id: string) => `/records/${encodeURIComponent(model)}/${encodeURIComponent(id)}/edit`,
  create: (model: string, query?: string) => `/records/${encodeURIComponent(model)}/new${query ? `?${query}` : ''}`,
  importCsv: (model: string) => `/records/${encodeURIComponent(model)}/import`,
  approvals: () => '/approvals',
  /** One plan in the approvals inbox, shown under its status and highlighted. */
  plan: (planId: string) => `/approvals#plan-${encodeURIComponent(planId)}`,
  tokens: () => '/agent-tokens',
  audit: () => '/audit',
  webhooks: () => '/webhooks',
};

export type Route =
  | { readonly page: 'home' }
  | { readonly page: 'list'; readonly model: string }
  | { readonly page: 'create'; readonly model: string }
  | { readonly page: 'import'; readonly model: string }
  | { readonly page: 'record'; readonly model: string; readonly id: string }
  | { readonly page: 'edit'; readonly model: string; readonly id: string }
  | { readonly page: 'approvals' }
  | { readonly page: 'tokens' }
  | { readonly page: 'audit' }
  | { readonly page: 'webhooks' }
  | { readonly page: 'not-found' };

export function matchRoute(path: string): Route {
  const parts = path.split('/').filter(Boolean).map((part) => {
    try {
      return decodeURIComponent(part);
    } catch {
      return part;
    }
  });
  if (parts.length === 0) return { page: 'home' };
  const [first, model, id, extra] = parts;
  if (first === 'records' && model) {
    if (id === undefined) return { page: 'list', model };
    if (id === 'new' && extra === undefined) return { page: 'create', model };
    if (id === 'import' && extra === undefined) return { page: 'import', model };
    if (extra === undefined) return { page: 'record', model, id };
    if (extra === 'edit' && parts.length === 4) return { page: 'edit', model, id };
  }
  if (parts.length === 1 && first === 'approvals') return { page: 'approvals' };
  if (parts.length === 1 && first === 'agent-tokens') return { page: 'tokens' };
  if (parts.length === 1 && first === 'audit') return { page: 'audit' };
  if (parts.length === 1 && first === 'webhooks') return { page: 'webhooks' };
  return { page: 'not-found' };
}
