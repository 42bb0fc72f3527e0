/** Table tests of web/src/lib/router.ts: routes and record fragments; `useLocation` in Chromium. */
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { build } from 'esbuild';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { matchRoute, fragmentId, paths } from '../../../web/src/lib/router.ts';
import { CHROMIUM, launchChromium } from '../../helpers/browser.ts';
import { ROOT } from '../../helpers/fixtures.ts';

describe('routes', () => {
  it.each([
    ['/', { page: 'home' }],
    ['/records/lead', { page: 'list', model: 'lead' }],
    ['/records/lead/new', { page: 'create', model: 'lead' }],
    ['/records/lead/import', { page: 'import', model: 'lead' }],
    ['/records/lead/01ABC', { page: 'record', model: 'lead', id: '01ABC' }],
    ['/records/lead/01ABC/edit', { page: 'edit', model: 'lead', id: '01ABC' }],
    ['/approvals', { page: 'approvals' }],
    ['/agent-tokens', { page: 'tokens' }],
    ['/audit', { page: 'audit' }],
    ['/records/lead/01ABC/what', { page: 'not-found' }],
    ['/elsewhere', { page: 'not-found' }],
  ])('%s', (path, route) => expect(matchRoute(path)).toEqual(route));
});

describe('fragments', () => {
  it('links to a history entry and to a plan', () => {
    expect(paths.change('lead', 'L 1', '01ABC')).toBe('/records/lead/L%201#change-01ABC');
    expect(paths.plan('01PLAN')).toBe('/approvals#plan-01PLAN');
    expect(matchRoute(new URL(paths.change('lead', 'L1', 'X'), 'http://x').pathname)).toEqual({ page: 'record', model: 'lead', id: 'L1' });
  });

  it.each([
    ['#change-01ABC', 'change-', '01ABC'],
    ['#change-', 'change-', null],
    ['', 'change-', null],
    ['#plan-01P', 'change-', null],
    ['#plan-01P', 'plan-', '01P'],
    ['#change-%E0%A4%A', 'change-', null],
  ])('fragmentId(%j, %j) = %j', (hash, prefix, id) => expect(fragmentId(hash, prefix)).toBe(id));
});

/**
 * `useLocation` in Chromium: a navigation that happens after a component's first render but before
 * its effects run (a person changing a filter of a page that has just appeared; Preact runs
 * effects after the next frame, later on a busy machine) must still reach the component. The
 * page renders `Shown` and navigates in the same task, before any effect has run.
 */
describe.skipIf(!existsSync(CHROMIUM))('useLocation in Chromium', () => {
  let server: Server;
  let url: string;
  let browser: Browser;

  beforeAll(async () => {
    const bundle = await build({
      stdin: {
        contents: `
          import { h, render } from 'preact';
          import { navigate, useLocation } from './web/src/lib/router.ts';
          function Shown() {
            const location = useLocation();
            return h('p', { id: 'shown' }, location.path + '?' + location.query.toString() + location.hash);
          }
          render(h(Shown, null), document.getElementById('root'));
          navigate('/audit?access=read#top', { replace: true });
        `,
        resolveDir: ROOT,
        loader: 'ts',
      },
      bundle: true,
      write: false,
      format: 'iife',
      logLevel: 'silent',
    });
    const page = `<!doctype html><html><body><div id="root"></div><script>${bundle.outputFiles[0]!.text.replaceAll('</script', '<\\/script')}</script></body></html>`;
    server = createServer((_, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
  });

  it('shows a navigation made before its effects ran', async () => {
    const page = await browser.newPage();
    await page.goto(url);
    await expect.poll(() => page.locator('#shown').textContent(), { timeout: 5_000 }).toBe('/audit?access=read#top');
    // And keeps following navigations after that.
    await page.evaluate(() => {
      window.history.pushState(null, '', '/elsewhere');
      window.dispatchEvent(new PopStateEvent('popstate'));
    });
    await expect.poll(() => page.locator('#shown').textContent(), { timeout: 5_000 }).toBe('/elsewhere?');
  });
});
