/**
 * The Webhooks page, in Debian's Chromium against the real server: hidden from a person without
 * `admin` (no menu entry, the page not found); an admin creates a webhook and sees its generated
 * secret once with a copy button, edits it, rotates its secret (a second one shown once, then the
 * old one dropped), sees its deliveries (to an address that cannot answer here: each dies at its
 * first failure) and redelivers one and every dead one, and deletes it after confirming. Bad
 * inputs show the server's own error text in the form and change nothing. At 1280 and 390 px,
 * without sideways scrolling. Screenshots go to test/screenshots/ (git-ignored).
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, expectNoSidewaysScroll, LAPTOP, launchChromium, PHONE, SCREENSHOTS, signIn } from '../helpers/browser.ts';
import { startWebTestServer, type WebTestServer } from '../helpers/web-server.ts';

let server: WebTestServer;
let browser: Browser;
let admin: string;
/** A public address this machine cannot reach: deliveries to it fail. */
const UNREACHABLE = 'http://8.8.8.8:9/hooks/rms';

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is needed (apt install chromium)`);
  mkdirSync(SCREENSHOTS, { recursive: true });
  server = await startWebTestServer({ webhooks: { allowPrivate: false, worker: { idleMs: 20, retryForMs: 0, timeoutMs: 300 } } });
  admin = await server.login();
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

async function newPage(viewport = LAPTOP): Promise<Page> {
  const context = await browser.newContext({ baseURL: server.url, locale: 'en-US', timezoneId: 'UTC', viewport });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  return page;
}

const hooks = async () => (await server.request('POST', '/api/webhook/list', {}, admin)).body.value as { id: string; url: string; models: string[] | null; commands: string[] | null; as_role: string; secret_count: number }[];

describe('the Webhooks page', () => {
  it('is not offered to a person without admin', async () => {
    await server.addPerson('sam', ['sales'], 'sam-password-1');
    const page = await newPage();
    await signIn(page, 'sam', 'sam-password-1');
    await expect.poll(() => page.locator('nav#sidebar').getByRole('link', { name: 'Webhooks' }).count()).toBe(0);
    await page.goto('/webhooks');
    await expect.poll(() => page.locator('h1').innerText()).not.toBe('Webhooks');
    await page.context().close();
  });

  it.each([
    ['laptop', LAPTOP],
    ['phone', PHONE],
  ] as const)('creates, edits, rotates, shows deliveries, redelivers and deletes (%s)', async (name, viewport) => {
    const page = await newPage(viewport);
    await signIn(page, 'admin', undefined, '/webhooks');
    await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();

    // Bad inputs: the server's words, nothing made.
    const form = page.getByRole('region', { name: 'New webhook' }).or(page.locator('section.card', { has: page.getByRole('heading', { name: 'New webhook' }) }));
    await page.getByLabel('URL').fill('http://127.0.0.1:9/hooks');
    await page.getByLabel('Sends as role').fill('sales');
    await page.getByRole('button', { name: 'Create webhook' }).click();
    await expect.poll(() => page.getByRole('alert').innerText()).toBe('url: 127.0.0.1 is a loopback, private or reserved address, which webhooks may not reach (serve --allow-private-webhooks allows it)');
    for (const [url, role, models, message] of [
      ['not-a-url', 'sales', '', 'url must be an absolute http or https URL'],
      ['ftp://example.com/x', 'sales', '', 'url must be an http or https URL, not ftp'],
      [UNREACHABLE, 'nobody', '', /^as_role: no role named nobody/],
      [UNREACHABLE, 'sales', 'lead, nothing', 'models[1]: no model named nothing'],
    ] as const) {
      await page.getByLabel('URL').fill(url);
      await page.getByLabel('Sends as role').fill(role);
      await page.getByLabel('Models').fill(models);
      await page.getByRole('button', { name: 'Create webhook' }).click();
      if (typeof message === 'string') await expect.poll(() => page.getByRole('alert').innerText()).toBe(message);
      else await expect.poll(() => page.getByRole('alert').innerText()).toMatch(message);
    }
    expect(await hooks()).toEqual([]);
    await form.first().screenshot({ path: join(SCREENSHOTS, `webhooks-refused-${name}.png`) });

    // Created: the secret shown once, with a copy button.
    await page.getByLabel('Models').fill('lead');
    await page.getByRole('button', { name: 'Create webhook' }).click();
    const secretBox = page.getByRole('region', { name: `Secret for ${UNREACHABLE}` });
    await secretBox.waitFor();
    await expect.poll(() => secretBox.innerText()).toContain('it is shown once, and never again');
    const secret = await page.getByLabel('Webhook secret').inputValue();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    await secretBox.getByRole('button', { name: 'Copy' }).click();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    const [made] = await hooks();
    expect(made).toMatchObject({ url: UNREACHABLE, models: ['lead'], commands: null, as_role: 'sales', secret_count: 1 });
    expect(await page.getByLabel('URL').inputValue()).toBe('');
    await page.screenshot({ path: join(SCREENSHOTS, `webhooks-created-${name}.png`), fullPage: true });
    await expectNoSidewaysScroll(page);
    await secretBox.getByRole('button', { name: 'Done, I have saved it' }).click();
    await expect.poll(() => secretBox.count()).toBe(0);

    // Edited: commands, role; a bad one refused in the server's words.
    await page.getByRole('button', { name: `Edit ${UNREACHABLE}` }).click();
    await page.getByLabel('Commands').fill('create, fly');
    await page.getByRole('button', { name: 'Save webhook' }).click();
    await expect.poll(() => page.getByRole('alert').innerText()).toBe('commands[1]: no model of lead has a command fly that changes records');
    await page.getByLabel('Commands').fill('create, update');
    await page.getByRole('button', { name: 'Save webhook' }).click();
    await expect.poll(async () => (await hooks())[0]!.commands).toEqual(['create', 'update']);

    // Rotation: a second secret, shown once; then the old one dropped.
    await page.getByRole('button', { name: `Edit ${UNREACHABLE}` }).click();
    await page.getByRole('button', { name: 'Add a new secret' }).click();
    await page.getByRole('region', { name: `New secret for ${UNREACHABLE}` }).waitFor();
    const second = await page.getByLabel('Webhook secret').inputValue();
    expect(second).not.toBe(secret);
    expect((await hooks())[0]!.secret_count).toBe(2);
    await page.getByRole('button', { name: 'Drop the old secret' }).click();
    await expect.poll(async () => (await hooks())[0]!.secret_count).toBe(1);
    await page.getByRole('button', { name: 'Done, I have saved it' }).click();
    await page.getByRole('button', { name: 'Cancel' }).click();

    // Deliveries: two leads made, each delivery dies at its first failure here.
    for (const title of ['Boiler', 'Pump']) expect((await server.command(admin, 'lead.create', { title })).status).toBe(200);
    const dead = async () => ((await server.request('POST', '/api/webhook/deliveries', { id: made!.id, status: 'dead' }, admin)).body.value.total as number);
    await expect.poll(dead, { timeout: 10_000 }).toBe(2);
    await page.getByRole('button', { name: `Deliveries of ${UNREACHABLE}` }).click();
    const deliveries = page.getByRole('region', { name: `Deliveries to ${UNREACHABLE}` });
    await expect.poll(() => deliveries.locator('tbody tr').count()).toBe(2);
    await expect.poll(() => deliveries.locator('tbody tr').first().innerText()).toMatch(/lead\.create[\s\S]*dead[\s\S]*1/);
    await page.screenshot({ path: join(SCREENSHOTS, `webhooks-deliveries-${name}.png`), fullPage: true });
    await expectNoSidewaysScroll(page);
    await deliveries.getByRole('button', { name: /^Redeliver lead\.create of / }).first().click();
    await expect.poll(() => page.locator('.notice').innerText()).toContain('One delivery sent again.');
    await expect.poll(dead, { timeout: 10_000 }).toBe(2);
    await deliveries.getByRole('button', { name: 'Refresh' }).click();
    await deliveries.getByRole('button', { name: 'Redeliver every dead one' }).click();
    await expect.poll(() => page.locator('.notice').innerText()).toContain('2 deliveries sent again.');

    // Deleted after confirming.
    await page.getByRole('button', { name: `Delete ${UNREACHABLE}` }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await expect.poll(hooks).toEqual([]);
    await expect.poll(() => page.locator('.empty-state').first().innerText()).toBe('No webhooks yet.');
    await page.context().close();
  });
});
