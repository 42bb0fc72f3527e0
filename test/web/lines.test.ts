/**
 * Records with lines in the web app, in Debian's Chromium against the real server, on the fixture
 * `order` (test/fixtures/modules/sales): an order created with its items, each amount and the total
 * worked out while typing (by the generated functions bundled into the app) and the lines moved with
 * the keyboard; problems beside the line (or field, for a rule) they name, from the browser and from
 * the server; an action's inputs asked for in a dialog; a done order locked; an agent's plan with
 * line changes (proposed over REST) shown line by line in the inbox and approved, at 1280 and
 * 390 px. Screenshots go to test/screenshots/ (git-ignored).
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, type BrowserContext, type Download, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, expectNoSidewaysScroll, LAPTOP, launchChromium, PHONE, SCREENSHOTS, signIn } from '../helpers/browser.ts';
import { registry } from '../fixtures/generated/registry.ts';
import { ADMIN_PASSWORD, startWebTestServer, type WebTestServer } from '../helpers/web-server.ts';

let server: WebTestServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let adminToken: string;
/** An agent token of admin's with the scopes order.* ("Order bot"), made over REST. */
let orderBot: string;
let acmeId: string;

/** The browser's zone: an hour ahead of UTC in winter, so that a typed time and the stored instant differ. */
const ZONE = 'Europe/Berlin';
const todayInZone = () => new Intl.DateTimeFormat('en-CA', { timeZone: ZONE }).format(new Date());

const poll = <T>(read: () => Promise<T>) => expect.poll(read, { timeout: 10_000 });

async function shot(name: string, target: Page = page, fullPage = true): Promise<void> {
  if (fullPage) await target.evaluate(() => window.scrollTo(0, 0));
  await target.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage });
}

async function ok(token: string, commandId: string, input: unknown): Promise<any> {
  const res = await server.command(token, commandId, input);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.value;
}

/** An order of Acme's with these items (description, quantity, unit price in cents), over REST. */
async function makeOrder(number: string, items: readonly [string, number, number][]): Promise<any> {
  return ok(adminToken, 'order.create', { number, customer: acmeId, items: items.map(([description, quantity, unit_price]) => ({ description, quantity, unit_price })) });
}

const notice = (target: Page = page) => target.locator('.notice');
const line = (number: number, target: Page = page) => target.getByRole('listitem', { name: `Line ${number}`, exact: true });
const lineInput = (number: number, label: string, target: Page = page) => line(number, target).getByLabel(new RegExp(`^${label}, line ${number}`));
const lineAmount = (number: number, target: Page = page) => line(number, target).locator('output[id$="-amount"]');

/** The error shown beside an input (what its aria-describedby names), or null without one. */
async function errorOf(input: Locator): Promise<string | null> {
  return input.evaluate((element) => {
    const ids = (element.getAttribute('aria-describedby') ?? '').split(' ').filter((id) => id.endsWith('-error'));
    return ids.length === 0 ? null : (document.getElementById(ids[0]!)?.textContent ?? null);
  });
}
const total = (target: Page = page) => target.locator('#field-order-total');
const detail = (label: string, target: Page = page) => target.locator('dl.details .detail', { has: target.locator('dt', { hasText: new RegExp(`^${label}$`) }) }).locator('dd');

/** The rows of a line table as its cells' texts (line number first). */
async function tableRows(scope: Locator): Promise<string[][]> {
  return scope.locator('tbody tr').evaluateAll((rows) => rows.map((row) => Array.from(row.querySelectorAll('td')).map((cell) => (cell as HTMLElement).innerText.replace(/^Line /, '').trim())));
}

/** A line change list as its items' texts. */
async function lineChanges(scope: Locator): Promise<string[]> {
  return scope.locator('.lines-change-list > li').evaluateAll((items) => items.map((item) => (item as HTMLElement).innerText.replace(/\s+/g, ' ').trim()));
}

async function pickCustomer(name: string, target: Page = page): Promise<void> {
  const customer = target.getByRole('combobox', { name: 'Customer' });
  await customer.fill(name.slice(0, 4));
  await target.getByRole('option', { name }).click();
}

describe.skipIf(!existsSync(CHROMIUM))('records with lines in Chromium', () => {
  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    // An agent's update of an order needs approval here, so that a change of lines alone is a plan
    // (the fixture's approval-needing action, cancel, takes a reason and is called, not updated to).
    server = await startWebTestServer({
      registry: { ...registry, commands: { ...registry.commands, 'order.update': { ...registry.commands['order.update']!, needsApproval: true } } },
    });
    adminToken = await server.login();
    const issued = await server.request('POST', '/api/auth/agent-token', { scopes: ['order.*'], label: 'Order bot' }, adminToken);
    expect(issued.status).toBe(200);
    orderBot = issued.body.token;
    acmeId = (await ok(adminToken, 'party.create', { name: 'Acme GmbH', kind: 'company' })).id;
    browser = await launchChromium();
    context = await browser.newContext({ viewport: LAPTOP, baseURL: server.url, locale: 'en-US', timezoneId: ZONE });
    page = await context.newPage();
    page.setDefaultTimeout(10_000);
    await signIn(page);
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('creates an order with its items, working out each amount and the total while typing, and moves a line with the keyboard', async () => {
    await page.goto('/records/order/new');
    await page.getByRole('heading', { name: 'New order' }).waitFor();
    // Defaults fill the new record: the order date is today where the reader is; the discount 0.
    expect(await page.getByLabel('Ordered on').inputValue()).toBe(todayInZone());
    expect(await page.getByLabel('Discount pct').inputValue()).toBe('0');
    // One line to start with (the list needs one); the total is worked out, not typed.
    await poll(() => page.getByRole('listitem', { name: /^Line \d+$/ }).count()).toBe(1);
    expect(await total().innerText()).toBe('€0.00');

    await page.getByLabel('Number').fill('AB-1001');
    await pickCustomer('Acme GmbH');
    await lineInput(1, 'Description').fill('Widget');
    await lineInput(1, 'Quantity').fill('2');
    await lineInput(1, 'Unit price').fill('12.50');
    await poll(() => lineAmount(1).innerText()).toBe('€25.00');
    expect(await total().innerText()).toBe('€25.00');

    // Add a line: focus goes to its first input.
    await page.getByRole('button', { name: '+ Add a line to items' }).click();
    await poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-describedby') ?? document.activeElement?.id ?? '')).toMatch(/-description$/);
    await lineInput(2, 'Description').fill('Bolt');
    await lineInput(2, 'Quantity').fill('0.5');
    await lineInput(2, 'Unit price').fill('3');
    await poll(() => lineAmount(2).innerText()).toBe('€1.50');
    expect(await total().innerText()).toBe('€26.50');
    // More decimals than the quantity takes: what depends on it is unknown until it is a quantity.
    await lineInput(2, 'Quantity').fill('0.5001');
    await poll(() => lineAmount(2).innerText()).toBe('—');
    expect(await total().innerText()).toBe('—');
    await lineInput(2, 'Quantity').fill('0.5');

    // Move line 2 up with the keyboard: the lines swap, the total stays, focus stays on the moved line.
    await line(2).getByRole('button', { name: 'Move line 2 up' }).focus();
    await page.keyboard.press('Enter');
    await poll(() => lineInput(1, 'Description').inputValue()).toBe('Bolt');
    expect(await lineInput(2, 'Description').inputValue()).toBe('Widget');
    // The editor moves focus in an effect after the lines re-render: wait for it rather than read it at once.
    await poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Move line 1 down');
    expect(await total().innerText()).toBe('€26.50');

    await page.getByRole('group', { name: 'Tags' }).getByLabel('Export').check();
    await page.getByRole('group', { name: 'Tags' }).getByLabel('Rush').check();
    await page.getByLabel('Website').fill('https://example.com/shop');
    await page.getByLabel('Contact email').fill('buyer@acme.example');
    await expectNoSidewaysScroll(page);
    await shot('l01-order-form');

    await page.getByRole('button', { name: 'Create order' }).click();
    await page.getByRole('heading', { name: /AB-1001/ }).waitFor();
    const items = page.getByRole('region', { name: /^Items/ });
    expect(await tableRows(items)).toEqual([
      ['1', 'Bolt', '0.5', '€3.00', '—', '€1.50'],
      ['2', 'Widget', '2', '€12.50', '—', '€25.00'],
    ]);
    expect(await detail('Total').innerText()).toBe('€26.50');
    expect(await detail('Tags').innerText()).toBe('Rush\nExport');
    expect(await detail('Website').getByRole('link').getAttribute('href')).toBe('https://example.com/shop');
    expect(await detail('Contact email').getByRole('link').getAttribute('href')).toBe('mailto:buyer@acme.example');
    const id = new URL(page.url()).pathname.split('/').pop()!;
    const saved = await ok(adminToken, 'order.get', { id });
    expect(saved).toMatchObject({ number: 'AB-1001', customer: acmeId, ordered_on: todayInZone(), discount_pct: 0, tags: ['rush', 'export'], total: 2650, status: 'draft' });
    expect(saved.items.map((item: any) => [item.description, item.quantity, item.unit_price, item.amount])).toEqual([
      ['Bolt', 0.5, 300, 150],
      ['Widget', 2, 1250, 2500],
    ]);
    await expectNoSidewaysScroll(page);
    await shot('l02-order-page');
  });

  it('saves a line moved in the form, and shows the move in the history, which a revert puts back', async () => {
    const order = await makeOrder('AB-1009', [
      ['Widget', 2, 1250],
      ['Bolt', 1, 300],
      ['Nut', 4, 10],
    ]);
    await page.goto(`/records/order/${order.id}/edit`);
    await page.getByRole('heading', { name: 'Edit order' }).waitFor();
    await line(3).getByRole('button', { name: 'Move line 3 up' }).click();
    await poll(() => lineInput(2, 'Description').inputValue()).toBe('Nut');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('heading', { name: /AB-1009/ }).waitFor();
    const entry = page.locator('.history-entry').first();
    await poll(() => lineChanges(entry.locator('.lines-change'))).toEqual(['order “Widget”, “Nut”, “Bolt” (was “Widget”, “Bolt”, “Nut”)']);
    expect(await entry.locator('.lines-change-head').innerText()).toBe('Items reordered');
    await expectNoSidewaysScroll(page);
    await shot('l02b-history-line-moved');
    await entry.getByRole('button', { name: 'Revert' }).click();
    await page.getByRole('dialog', { name: 'Revert this change?' }).getByRole('button', { name: 'Revert' }).click();
    await poll(async () => (await ok(adminToken, 'order.get', { id: order.id })).items.map((item: any) => item.description)).toEqual(['Widget', 'Bolt', 'Nut']);
  });

  it('does not save lines over ones someone added while the form was open: it says what was added and keeps them', async () => {
    const order = await makeOrder('AB-1010', [['Gadget', 1, 500]]);
    await page.goto(`/records/order/${order.id}/edit`);
    await page.getByRole('heading', { name: 'Edit order' }).waitFor();
    // A colleague adds a line meanwhile.
    const current = await ok(adminToken, 'order.get', { id: order.id });
    await ok(adminToken, 'order.update', { id: order.id, items: [{ id: current.items[0].id }, { description: 'Colleague line', quantity: 1, unit_price: 100 }] });
    await lineInput(1, 'Description').fill('Gadget, renamed');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.locator('.alert-error').filter({ hasText: 'Someone added a line in Items since you opened this order; saving would remove them.' }).waitFor();
    expect((await ok(adminToken, 'order.get', { id: order.id })).items.map((item: any) => item.description)).toEqual(['Gadget', 'Colleague line']);
    // Opened again, the form shows both, and saves.
    await page.goto(`/records/order/${order.id}/edit`);
    await page.getByRole('heading', { name: 'Edit order' }).waitFor();
    await lineInput(1, 'Description').fill('Gadget, renamed');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('heading', { name: /AB-1010/ }).waitFor();
    expect((await ok(adminToken, 'order.get', { id: order.id })).items.map((item: any) => item.description)).toEqual(['Gadget, renamed', 'Colleague line']);
  });

  it('shows a line’s problem beside that line, and a rule’s beside the field it names', async () => {
    const order = await makeOrder('AB-1002', [
      ['Widget', 2, 1250],
      ['Bolt', 1, 300],
    ]);
    await page.goto(`/records/order/${order.id}/edit`);
    await page.getByRole('heading', { name: 'Edit order' }).waitFor();
    // Found in the browser: beside line 2's quantity, which gets the focus.
    await lineInput(2, 'Quantity').fill('0');
    await lineInput(1, 'Description').fill('');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await poll(() => errorOf(lineInput(2, 'Quantity'))).toBe('Quantity must be at least 0.001');
    expect(await lineInput(2, 'Quantity').getAttribute('aria-invalid')).toBe('true');
    expect(await errorOf(lineInput(1, 'Description'))).toBe('Description is required');
    expect(await errorOf(lineInput(1, 'Quantity'))).toBeNull();
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-describedby'))).toMatch(/-description-error$/);
    await shot('l03-line-errors');
    // Typing clears that field's error only.
    await lineInput(2, 'Quantity').fill('3');
    expect(await line(2).locator('.field-error').count()).toBe(0);
    expect(await line(1).locator('.field-error').count()).toBe(1);
    await lineInput(1, 'Description').fill('Widget XL');

    // Found by the server: line 1 was removed meanwhile (someone else's edit), so its id is no line of the order.
    const current = await ok(adminToken, 'order.get', { id: order.id });
    await ok(adminToken, 'order.update', { id: order.id, items: [{ id: current.items[1].id, description: 'Bolt', quantity: 1, unit_price: 300 }] });
    await page.getByRole('button', { name: 'Save changes' }).click();
    await poll(() => line(1).locator('.line-row-head + .field-error').innerText()).toBe('Line 1: id is not a line of this order');
    expect(await line(2).locator('.field-error').count()).toBe(0);
    expect((await ok(adminToken, 'order.get', { id: order.id })).items.map((item: any) => item.description)).toEqual(['Bolt']);

    // A rule the server checks: beside the field it names.
    await page.goto(`/records/order/${order.id}/edit`);
    await page.getByRole('heading', { name: 'Edit order' }).waitFor();
    await page.getByLabel('Deliver by').fill('2000-01-01');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await poll(() => errorOf(page.getByLabel('Deliver by'))).toBe('Deliver by must be on or after the order date');
    expect(await page.getByLabel('Deliver by').getAttribute('aria-invalid')).toBe('true');
    expect((await ok(adminToken, 'order.get', { id: order.id })).deliver_by).toBeNull();
    await expectNoSidewaysScroll(page);
    await shot('l04-rule-error');
  });

  it('asks for an action’s inputs in a dialog, says what it sets, and locks a done order', async () => {
    const order = await makeOrder('AB-1003', [['Widget', 1, 1000]]);
    await page.goto(`/records/order/${order.id}`);
    await page.getByRole('heading', { name: /AB-1003/ }).waitFor();
    // Confirm takes nothing: it runs, and sets its date.
    await page.getByRole('button', { name: 'Confirm', exact: true }).click();
    await notice().getByText('“AB-1003”: Status is now Confirmed.').waitFor();
    expect(await detail('Confirmed on').locator('time').getAttribute('datetime')).toBe(new Date().toISOString().slice(0, 10));

    // Deliver asks for when (optional), in the reader's time zone, and says what it does.
    await page.getByRole('button', { name: 'Deliver…' }).click();
    const dialog = page.getByRole('dialog', { name: /^Deliver/ });
    expect(await dialog.locator('.action-effect').innerText()).toBe('Status becomes Done.');
    expect(await dialog.getByText(`Delivered at (${ZONE})`).count()).toBe(1);
    await dialog.getByLabel(/^Delivered at/).fill('2026-11-26T15:30');
    await shot('l05-action-dialog', page, false);
    await dialog.getByRole('button', { name: 'Deliver' }).click();
    await notice().getByText('“AB-1003”: Status is now Done.').waitFor();
    expect((await ok(adminToken, 'order.get', { id: order.id })).delivered_at).toBe('2026-11-26T14:30:00.000Z');
    expect(await detail('Delivered at').innerText()).toBe('Nov 26, 2026, 03:30 PM GMT+1');

    // Done is a locked state: why, and no Edit or Delete; its edit page says so instead of a form.
    expect(await page.locator('.locked-note').innerText()).toBe('This order is done, so it cannot be edited or deleted.');
    expect(await page.getByRole('link', { name: 'Edit' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Delete' }).count()).toBe(0);
    await expectNoSidewaysScroll(page);
    await shot('l06-locked-order');
    await page.goto(`/records/order/${order.id}/edit`);
    await page.locator('.locked-note').getByText('This order is done, so it cannot be edited.').waitFor();
    expect(await page.locator('form').count()).toBe(0);

    // Cancel needs a reason: refused beside it when left out; a cancelled order is locked, its actions gone.
    const other = await makeOrder('AB-1004', [['Widget', 1, 1000]]);
    await page.goto(`/records/order/${other.id}`);
    await page.getByRole('button', { name: 'Cancel…' }).click();
    const cancel = page.getByRole('dialog', { name: /^Cancel/ });
    await cancel.getByRole('button', { name: 'Cancel', exact: true }).last().click();
    await cancel.getByText('Reason is required').waitFor();
    await cancel.getByLabel(/^Reason/).fill('Customer changed their mind');
    await cancel.getByRole('button', { name: 'Cancel', exact: true }).last().click();
    await notice().getByText('“AB-1004”: Status is now Cancelled.').waitFor();
    expect(await page.locator('.locked-note').innerText()).toBe('This order is cancelled, so it cannot be edited or deleted.');
    // Its history shows the input that is not a field.
    const entry = page.locator('.history-entry').first();
    await poll(() => entry.locator('.history-inputs').innerText()).toContain('Customer changed their mind');
  });

  it('shows an agent’s plan with line changes in the inbox, line by line, and approves it, at 1280 and 390 px', async () => {
    for (const [width, viewport] of [
      ['laptop', LAPTOP],
      ['phone', PHONE],
    ] as const) {
      const target = width === 'laptop' ? page : await context.newPage();
      try {
        if (target !== page) {
          target.setDefaultTimeout(10_000);
          await target.setViewportSize(viewport);
        }
        const number = width === 'laptop' ? 'AB-2001' : 'AB-2002';
        const order = await makeOrder(number, [
          ['Widget', 2, 1250],
          ['Bolt', 10, 30],
          ['Nut', 100, 5],
        ]);
        const [widget, bolt] = order.items;
        // The agent changes the lines in one update: one plan.
        const proposal = await server.command(orderBot, 'order.update', {
          id: order.id,
          items: [
            { id: widget.id, description: 'Widget', quantity: 3, unit_price: 1250 },
            { id: bolt.id, description: 'Bolt', quantity: 10, unit_price: 30 },
            { description: 'Washer', quantity: 50, unit_price: 2 },
          ],
        });
        expect(proposal.status, JSON.stringify(proposal.body)).toBe(202);
        const planId = proposal.body.plan_id as string;
        expect((await ok(adminToken, 'order.get', { id: order.id })).items).toHaveLength(3);

        if (target === page) await target.goto(`/approvals#plan-${planId}`);
        else await signIn(target, 'admin', ADMIN_PASSWORD, `/approvals#plan-${planId}`);
        const card = target.locator(`li#plan-${planId}`);
        await card.waitFor();
        const changes = card.locator('.lines-change');
        await poll(() => lineChanges(changes)).toEqual([
          'added Description: Washer · Quantity: 50 · Unit price: €0.02',
          'removed Description: Nut · Quantity: 100 · Unit price: €0.05 · Note: — · Amount: €5.00',
          'changed “Widget” Quantity 2 → 3',
        ]);
        expect(await changes.locator('.lines-change-head').innerText()).toBe('Items 1 added, 1 removed, 1 changed');
        expect(await card.locator('.plan-input.changes').count()).toBe(0);
        await expectNoSidewaysScroll(target);
        await shot(`l07-plan-with-lines-${width}`, target);

        await card.getByRole('button', { name: 'Approve' }).click();
        await notice(target).getByText(`Approved: Update order “${number}”.`).waitFor();
        const after = await ok(adminToken, 'order.get', { id: order.id });
        expect(after.status).toBe('draft');
        expect(after.items.map((item: any) => [item.description, item.quantity, item.amount])).toEqual([
          ['Widget', 3, 3750],
          ['Bolt', 10, 300],
          ['Washer', 50, 100],
        ]);
        expect(after.total).toBe(4150);

        // The history names the agent and the plan, with the same line changes.
        await target.goto(`/records/order/${order.id}`);
        const entry = target.locator('.history-entry').first();
        await poll(() => entry.locator('.history-summary').innerText()).toContain(`via plan ${planId}`);
        expect(await lineChanges(entry.locator('.lines-change'))).toEqual([
          'added Description: Washer · Quantity: 50 · Unit price: €0.02 · Note: — · Amount: €1.00',
          'removed Description: Nut · Quantity: 100 · Unit price: €0.05 · Note: — · Amount: €5.00',
          'changed “Widget” Quantity 2 → 3 Amount €25.00 → €37.50',
        ]);
        // A person may revert the agent's change, which a plan made.
        expect(await entry.getByRole('button', { name: 'Revert' }).count()).toBe(1);
        await expectNoSidewaysScroll(target);
        await shot(`l08-history-with-lines-${width}`, target);
      } finally {
        if (target !== page) await target.close();
      }
    }
  });

  it('shows an agent’s revert of line changes in the inbox, as the lines it puts back, and approves it', async () => {
    const order = await makeOrder('AB-2101', [
      ['Widget', 2, 1250],
      ['Bolt', 10, 30],
    ]);
    const [widget] = order.items;
    await ok(adminToken, 'order.update', { id: order.id, items: [{ id: widget.id, description: 'Widget', quantity: 5, unit_price: 1250 }, { description: 'Nut', quantity: 1, unit_price: 5 }] });
    const [edit] = (await ok(adminToken, 'order.history', { id: order.id })).rows;
    const proposal = await server.command(orderBot, 'order.revert', { id: order.id, change_id: edit.change_id });
    expect(proposal.status, JSON.stringify(proposal.body)).toBe(202);
    const planId = proposal.body.plan_id as string;

    await page.goto(`/approvals#plan-${planId}`);
    const card = page.locator(`li#plan-${planId}`);
    await poll(() => lineChanges(card.locator('.lines-change'))).toEqual([
      'added Description: Bolt · Quantity: 10 · Unit price: €0.30 · Note: — · Amount: €3.00',
      'removed Description: Nut · Quantity: 1 · Unit price: €0.05 · Note: — · Amount: €0.05',
      'changed “Widget” Quantity 5 → 2 Amount €62.50 → €25.00',
    ]);
    await shot('l11-revert-plan-with-lines', page, false);
    await card.getByRole('button', { name: 'Approve' }).click();
    await notice().getByText('Approved: Revert order “AB-2101”.').waitFor();
    const after = await ok(adminToken, 'order.get', { id: order.id });
    expect(after.items.map((item: any) => [item.description, item.quantity])).toEqual([
      ['Widget', 2],
      ['Bolt', 10],
    ]);
    expect(after.total).toBe(2800);
  });

  it('shows an action’s input that is not a field in the inbox, as the agent gave it', async () => {
    const order = await makeOrder('AB-2201', [['Widget', 1, 1000]]);
    const proposal = await server.command(orderBot, 'order.cancel', { id: order.id, reason: 'Duplicate of AB-2001' });
    expect(proposal.status, JSON.stringify(proposal.body)).toBe(202);
    // From another page: a new fragment of the inbox already shown would not read the plans again.
    await page.goto(`/records/order/${order.id}`);
    await page.goto(`/approvals#plan-${proposal.body.plan_id}`);
    const card = page.locator(`li#plan-${proposal.body.plan_id}`);
    await poll(() => card.locator('.plan-input.changes').innerText()).toBe('Status\nDraft → Cancelled\nReason\nDuplicate of AB-2001');
  });

  it('filters orders by a multiselect, a decimal and a datetime, and exports their items to a second CSV file', async () => {
    const plain = await ok(adminToken, 'order.create', { number: 'AB-4001', customer: acmeId, tags: ['rush'], discount_pct: 5, items: [{ description: 'Widget', quantity: 2, unit_price: 1250 }] });
    const gift = await ok(adminToken, 'order.create', {
      number: 'AB-4002',
      customer: acmeId,
      tags: ['export', 'gift'],
      discount_pct: 12.5,
      items: [
        { description: 'Bolt, zinc', quantity: 1, unit_price: 300 },
        { description: '=SUM(A1)', quantity: 3, unit_price: 5, note: 'loose' },
      ],
    });
    await ok(adminToken, 'order.confirm', { id: gift.id });
    const delivered = await ok(adminToken, 'order.deliver', { id: gift.id, delivered_at: '2027-01-15T09:00:00Z' });

    /** The list filtered by one condition built in the filter builder: the order numbers shown and the filter's words. */
    async function filtered(field: string, condition: string, value: (row: Locator) => Promise<unknown>): Promise<{ numbers: string[]; chip: string }> {
      await page.goto('/records/order?sort=number');
      await page.getByRole('button', { name: 'Filters' }).click();
      const row = page.locator('.filter-row').first();
      await row.getByLabel('Field').selectOption({ label: field });
      await row.getByLabel('Condition', { exact: true }).selectOption({ label: condition });
      await value(row);
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await page.waitForURL(/[?&]f=/);
      // The filters' words show once the builder is closed.
      await page.getByRole('button', { name: /^Filters/ }).click();
      const chip = page.getByRole('list', { name: 'Active filters' }).locator('li').first();
      await chip.waitFor();
      await page.waitForLoadState('networkidle');
      const numbers = await page.locator('table.data tbody tr td:first-child').evaluateAll((cells) => cells.map((cell) => (cell as HTMLElement).innerText.trim()));
      return { numbers, chip: (await chip.innerText()).trim() };
    }
    expect(await filtered('Tags', 'has', (row) => row.getByLabel('Value').selectOption({ label: 'Gift' }))).toEqual({ numbers: ['AB-4002'], chip: expect.stringContaining('Tags has Gift') });
    expect((await filtered('Tags', 'has any of', async (row) => {
      await row.getByLabel('Gift').check();
      await row.getByLabel('Rush').check();
    })).numbers).toEqual(['AB-1001', 'AB-4001', 'AB-4002']);
    expect((await filtered('Discount pct', 'at least', (row) => row.getByLabel('Value').fill('10'))).numbers).toEqual(['AB-4002']);
    // 10:00 in Berlin is 09:00 UTC: on or after it, the delivery at 09:00 UTC.
    expect((await filtered('Delivered at', 'on or after', (row) => row.getByLabel('Value').fill('2027-01-15T10:00'))).numbers).toEqual(['AB-4002']);
    expect((await filtered('Delivered at', 'after', (row) => row.getByLabel('Value').fill('2027-01-15T10:01'))).numbers).toEqual([]);
    await expectNoSidewaysScroll(page);
    await shot('l12-filtered-orders', page, false);

    // Export: the orders, and their items in a second file, one row per line, the order's id and number first.
    await filtered('Number', 'contains', (row) => row.getByLabel('Value').fill('AB-400'));
    const downloads: Download[] = [];
    page.on('download', (download) => downloads.push(download));
    await page.getByRole('button', { name: 'Export CSV' }).click();
    await poll(async () => downloads.length).toBe(2);
    page.removeAllListeners('download');
    const text = async (download: Download) => readFileSync((await download.path())!).toString('utf8').slice(1).split('\r\n');
    const [orders, items] = downloads;
    expect(orders!.suggestedFilename()).toMatch(/^orders-\d{4}-\d{2}-\d{2}\.csv$/);
    expect(items!.suggestedFilename()).toMatch(/^orders-items-\d{4}-\d{2}-\d{2}\.csv$/);
    const orderLines = await text(orders!);
    expect(orderLines[0]).toBe('ID,Number,Customer,Ordered on,Deliver by,Contact email,Website,Discount pct,Tags,Confirmed on,Delivered at,Credit limit (EUR),Total (EUR),Status');
    expect(orderLines).toContain(`${gift.id},AB-4002,${acmeId},${gift.ordered_on},,,,12.5,"gift, export",${delivered.confirmed_on},2027-01-15T09:00:00.000Z,,3.15,done`);
    expect(await text(items!)).toEqual([
      'Order ID,Number,Line,Description,Quantity,Unit price (EUR),Note,Amount (EUR)',
      `${plain.id},AB-4001,1,Widget,2,12.50,,25.00`,
      `${gift.id},AB-4002,1,"Bolt, zinc",1,3.00,,3.00`,
      `${gift.id},AB-4002,2,'=SUM(A1),3,0.05,loose,0.15`,
      '',
    ]);

    // Orders need items, which an import cannot give: the import page says so instead of taking a file.
    await page.goto('/records/order/import');
    await page.locator('.import-blocked').getByText(/^Orders cannot be imported from CSV: each order needs at least one line of items/).waitFor();
    expect(await page.getByLabel('CSV file').count()).toBe(0);
  });

  it('shows a field the role may not write, and computed ones, read-only in the form', async () => {
    await server.addPerson('sam', ['sales'], 'sam-password-1');
    const sales = await context.newPage();
    try {
      sales.setDefaultTimeout(10_000);
      await signIn(sales, 'sam', 'sam-password-1', '/records/order/new');
      await sales.getByRole('heading', { name: 'New order' }).waitFor();
      const credit = sales.locator('.field-readonly', { has: sales.getByText('Credit limit', { exact: true }) });
      expect(await credit.locator('.help').innerText()).toBe('Your role may not set this field.');
      expect(await sales.getByRole('textbox', { name: /^Credit limit/ }).count()).toBe(0);
      expect(await sales.locator('.field-readonly', { has: sales.getByText('Total', { exact: true }) }).locator('.help').innerText()).toBe('Worked out from the other fields.');
      await sales.getByLabel('Number').fill('SA-5001');
      await pickCustomer('Acme GmbH', sales);
      await lineInput(1, 'Description', sales).fill('Widget');
      await lineInput(1, 'Quantity', sales).fill('1');
      await lineInput(1, 'Unit price', sales).fill('1');
      await sales.getByRole('button', { name: 'Create order' }).click();
      await sales.getByRole('heading', { name: /SA-5001/ }).waitFor();
      await shot('l13-sales-order', sales);
    } finally {
      await sales.close();
    }
  });

  it('fits an order’s page and form in a phone', async () => {
    const phone = await context.newPage();
    try {
      phone.setDefaultTimeout(10_000);
      await phone.setViewportSize(PHONE);
      await signIn(phone, 'admin', ADMIN_PASSWORD, '/records/order/new');
      await phone.getByRole('heading', { name: 'New order' }).waitFor();
      await lineInput(1, 'Description', phone).fill('Widget');
      await lineInput(1, 'Quantity', phone).fill('2');
      await lineInput(1, 'Unit price', phone).fill('12.50');
      await poll(() => total(phone).innerText()).toBe('€25.00');
      await expectNoSidewaysScroll(phone);
      await shot('l09-phone-order-form', phone);
      const order = await makeOrder('AB-3001', [
        ['Widget', 2, 1250],
        ['Bolt', 0.5, 300],
      ]);
      await phone.goto(`/records/order/${order.id}`);
      await phone.getByRole('heading', { name: /AB-3001/ }).waitFor();
      await expectNoSidewaysScroll(phone);
      await shot('l10-phone-order-page', phone);
    } finally {
      await phone.close();
    }
  });
});
