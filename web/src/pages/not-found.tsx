import type { ComponentChildren } from 'preact';
import { onLinkClick, paths } from '../lib/router.ts';
import { useDocumentTitle } from '../lib/page.ts';

/** Not found, with what else the page can say (a deleted record's history) after the way home. */
export function NotFound({ message, children }: { message?: string; children?: ComponentChildren }) {
  useDocumentTitle('Not found');
  return (
    <section class="page">
      <h1>Not found</h1>
      <p>{message ?? 'This page does not exist, or you may not see it.'}</p>
      <p>
        <a href={paths.home()} onClick={onLinkClick}>
          Go to the start page
        </a>
      </p>
      {children}
    </section>
  );
}
