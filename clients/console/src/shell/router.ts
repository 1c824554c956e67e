import { useEffect, useState } from 'preact/hooks';

/** The console's own address space: every route lives under the path the API serves it at. */
export const BASE = '/console';

export interface Location {
  /** The path after BASE, always starting with `/`. */
  readonly path: string;
  readonly query: URLSearchParams;
}

function current(): Location {
  const path = window.location.pathname.startsWith(BASE) ? window.location.pathname.slice(BASE.length) : '/';
  return { path: path === '' ? '/' : path, query: new URLSearchParams(window.location.search) };
}

const listeners = new Set<() => void>();
window.addEventListener('popstate', () => {
  for (const l of listeners) l();
});

/** Goes to a console path (`/search?q=x`) without reloading; `replace` keeps the history entry. */
export function navigate(to: string, replace = false): void {
  const url = `${BASE}${to}`;
  if (replace) window.history.replaceState(null, '', url);
  else window.history.pushState(null, '', url);
  for (const l of listeners) l();
}

/** The current location, re-rendering on every navigation. */
export function useLocation(): Location {
  const [location, setLocation] = useState(current);
  useEffect(() => {
    const update = () => setLocation(current());
    listeners.add(update);
    return () => void listeners.delete(update);
  }, []);
  return location;
}

/** A console link: a real href (opens in a new tab, readable by screen readers) that navigates in place. */
export function linkProps(to: string): { href: string; onClick: (e: MouseEvent) => void } {
  return {
    href: `${BASE}${to}`,
    onClick: (e: MouseEvent) => {
      if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
      e.preventDefault();
      navigate(to);
    },
  };
}

/** A path segment, escaped as ids are in the API's own paths. */
export const seg = (id: string) => encodeURIComponent(id);

/** A query string of the defined, non-empty values. */
export function queryOf(values: Record<string, string | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(values)) if (v !== undefined && v !== '') q.set(k, v);
  const s = q.toString();
  return s === '' ? '' : `?${s}`;
}
