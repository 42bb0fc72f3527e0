import { onLinkClick, paths } from '../lib/router.ts';
import { useDocumentTitle } from '../lib/page.ts';

export function NotFound({ message }: { message?: string }) {
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
    </section>
  );
}
