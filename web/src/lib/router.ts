/**
 * A small history router: the URL is the state (which page, which list filters), so the back
 * button, reloads and shared links work. The server answers every app path with index.html.
 */
import { useEffect, useState } from 'preact/hooks';

export interface Location {
  readonly path: string;
  readonly query: URLSearchParams;
}

const listeners = new Set<() => void>();

function current(): Location {
  return { path: window.location.pathname, query: new URLSearchParams(window.location.search) };
}

if (typeof window !== 'undefined') {
  window.addEventListener('popstate', () => {
    for (const listener of listeners) listener();
  });
}

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  const target = new URL(to, window.location.href);
  if (target.pathname + target.search === window.location.pathname + window.location.search) return;
  if (options.replace) window.history.replaceState(null, '', target.pathname + target.search);
  else window.history.pushState(null, '', target.pathname + target.search);
  for (const listener of listeners) listener();
  if (!options.replace) window.scrollTo(0, 0);
}

export function useLocation(): Location {
  const [location, setLocation] = useState(current);
  useEffect(() => {
    const update = () => setLocation(current());
    listeners.add(update);
    return () => void listeners.delete(update);
  }, []);
  return location;
}

/** Plain left clicks on app links navigate in place; other clicks (new tab, …) are the browser's. */
export function onLinkClick(event: MouseEvent): void {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  const anchor = (event.currentTarget as HTMLAnchorElement | null) ?? null;
  if (!anchor || anchor.target || anchor.origin !== window.location.origin) return;
  event.preventDefault();
  navigate(anchor.pathname + anchor.search);
}

export const paths = {
  home: () => '/',
  list: (model: string, query?: URLSearchParams | string) => {
    const search = query === undefined ? '' : String(query);
    return `/records/${encodeURIComponent(model)}${search ? `?${search}` : ''}`;
  },
  record: (model: string, id: string) => `/records/${encodeURIComponent(model)}/${encodeURIComponent(id)}`,
  edit: (model: string, id: string) => `/records/${encodeURIComponent(model)}/${encodeURIComponent(id)}/edit`,
  create: (model: string, query?: string) => `/records/${encodeURIComponent(model)}/new${query ? `?${query}` : ''}`,
  importCsv: (model: string) => `/records/${encodeURIComponent(model)}/import`,
  approvals: () => '/approvals',
  tokens: () => '/agent-tokens',
  audit: () => '/audit',
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
  return { page: 'not-found' };
}
