/**
 * The web app end to end in a real browser: Playwright (playwright-core) driving Debian's
 * Chromium against the real server on a temporary SQLite file. It walks what a person does:
 * sign in, create a party and a lead, filter and sort, qualify, approve an agent's proposed
 * delete, create and revoke an agent token, read the audit trail, and get sent back to sign-in
 * when the session ends. Screenshots of the main views go to test/screenshots/ (git-ignored).
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPerson } from '../../runtime/auth/index.ts';
import { openDatabase } from '../../runtime/db/connect.ts';
import { CHROMIUM, LAPTOP, launchChromium, PHONE, SCREENSHOTS } from '../helpers/browser.ts';
import { ADMIN_PASSWORD, startWebTestServer, type WebTestServer } from '../helpers/web-server.ts';


let server: WebTestServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let adminToken: string;

async function shot(name: string, target: Page = page): Promise<void> {
  await target.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/** Waits for a value in the page (vitest's default of one second is short on a busy machine). */
const poll = <T>(read: () => Promise<T>) => expect.poll(read, { timeout: 10_000 });

/** The app's success/error notice (role=status region at the top of main). */
const notice = (target: Page = page) => target.locator('.notice');

describe.skipIf(!existsSync(CHROMIUM))('web app in Chromium', () => {
  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    server = await startWebTestServer();
    adminToken = await server.login();
    browser = await launchChromium();
    context = await browser.newContext({ viewport: LAPTOP, baseURL: server.url, locale: 'en-US', timezoneId: 'UTC' });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
    page = await context.newPage();
    page.setDefaultTimeout(10_000);
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('serves the app shell with caching rules and an SPA fallback', async () => {
    const index = await fetch(`${server.url}/records/lead`);
    expect(index.status).toBe(200);
    expect(index.headers.get('cache-control')).toBe('no-cache');
    const html = await index.text();
    const script = /src="(\/assets\/app-[^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    const asset = await fetch(server.url + script);
    expect(asset.headers.get('cache-control')).toContain('immutable');
    expect((await fetch(`${server.url}/assets/missing.js`)).status).toBe(404);
    const api = await fetch(`${server.url}/api/nothing-here`);
    expect(api.headers.get('content-type')).toContain('application/json');
  });

  it('signs in, explaining a wrong password first', async () => {
    await page.goto('/');
    await page.getByRole('heading', { name: 'Records' }).waitFor();
    await page.getByLabel('Username').fill('admin');
    await page.getByLabel('Password').fill('not-the-password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('Wrong username or password.').waitFor();
    await shot('01-sign-in-error');

    await page.getByLabel('Password').fill(ADMIN_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Welcome, admin' }).waitFor();
    const nav = page.getByRole('navigation', { name: 'Main' });
    for (const name of ['Parties', 'Leads', 'Invoices', 'Approvals', 'Agent tokens', 'Audit trail']) {
      await nav.getByRole('link', { name }).waitFor();
    }
    await shot('02-home');
  });

  it('creates a party', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Parties' }).click();
    await page.getByText('No parties yet.').waitFor();
    await page.getByRole('link', { name: 'New party' }).first().click();
    await page.getByRole('heading', { name: 'New party' }).waitFor();
    // Required field left empty: the problem is shown next to it and nothing is sent.
    await page.getByRole('button', { name: 'Create party' }).click();
    await page.locator('#field-party-name-error').getByText('Name is required').waitFor();
    await page.getByLabel('Name').fill('Acme GmbH');
    await page.getByLabel('Email').fill('sales@acme.example');
    await page.getByLabel('Kind').selectOption('company');
    await page.getByLabel('Tax ID').fill('DE123456789');
    await shot('03-party-form');
    await page.getByRole('button', { name: 'Create party' }).click();
    await page.getByRole('heading', { name: /Acme GmbH/ }).waitFor();
    await notice().getByText('Party “Acme GmbH” created.').waitFor();
    await shot('03b-party-record');
    // Edit: only what changed is sent; emptying a field clears it.
    await page.getByRole('link', { name: 'Edit' }).click();
    await page.getByRole('heading', { name: 'Edit party' }).waitFor();
    expect(await page.getByLabel('Email').inputValue()).toBe('sales@acme.example');
    await page.getByLabel('Phone').fill('+49 30 1234567');
    await page.getByLabel('Tax ID').fill('');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await notice().getByText('Party “Acme GmbH” saved.').waitFor();
    const saved = (await server.command(adminToken, 'party.search', {})).body.value.rows[0];
    expect(saved).toMatchObject({ name: 'Acme GmbH', phone: '+49 30 1234567', tax_id: null, kind: 'company' });
    const details = page.locator('dl.details');
    expect(await details.locator('.detail', { hasText: 'Kind' }).locator('dd').innerText()).toBe('Company');
  });

  it('creates a lead with a ref picker, money and a date, showing server errors by the field', async () => {
    const shortLived = (await server.command(adminToken, 'party.create', { name: 'Shortlived Ltd' })).body.value;
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Leads' }).click();
    await page.getByRole('link', { name: 'New lead' }).first().click();
    await page.getByRole('heading', { name: 'New lead' }).waitFor();
    await page.getByLabel('Title').fill('Big deal');
    const party = page.getByRole('combobox', { name: 'Party' });
    await party.fill('ltd');
    await page.getByRole('option', { name: 'Shortlived Ltd' }).click();
    expect(await party.inputValue()).toBe('Shortlived Ltd');
    await page.getByLabel('Expected revenue').fill('12,345.6');
    await page.getByLabel('Probability (%)').fill('60.5');
    await page.getByLabel('Close date').fill('2031-03-15');
    await page.getByLabel('Hot').check();
    await page.getByRole('button', { name: 'Create lead' }).click();
    // Checked in the browser: a number must be whole.
    await page.locator('#field-lead-probability-error').getByText('Probability (%) must be a whole number').waitFor();
    await page.getByLabel('Probability (%)').fill('60');
    // Checked by the server: the chosen party was deleted meanwhile; `lead.party: …` is shown by the field, in words.
    expect((await server.command(adminToken, 'party.delete', { id: shortLived.id })).status).toBe(200);
    await page.getByRole('button', { name: 'Create lead' }).click();
    const serverError = page.locator('#field-lead-party-error');
    await serverError.waitFor();
    expect(await serverError.innerText()).toMatch(/^Party: no party with id /);
    expect(await party.getAttribute('aria-invalid')).toBe('true');
    await shot('04-lead-form-error');
    // By keyboard this time: type, the first match is active, Enter picks it.
    await party.fill('acm');
    await page.getByRole('option', { name: 'Acme GmbH' }).waitFor();
    await party.press('Enter');
    expect(await party.inputValue()).toBe('Acme GmbH');
    await page.getByRole('button', { name: 'Create lead' }).click();

    await page.getByRole('heading', { name: /Big deal/ }).waitFor();
    const detail = (label: string) => page.locator('dl.details .detail', { hasText: label }).first().locator('dd');
    expect(await detail('Expected revenue').innerText()).toBe('12,345.60');
    expect(await detail('Close date').innerText()).toBe('Mar 15, 2031');
    expect(await detail('Hot').innerText()).toBe('Yes');
    expect(await detail('Stage').innerText()).toBe('New');
    await detail('Party').getByRole('link', { name: 'Acme GmbH' }).waitFor();
    const stored = await server.command(adminToken, 'lead.search', { filter: [{ field: 'title', op: 'eq', value: 'Big deal' }] });
    expect(stored.body.value.rows[0]).toMatchObject({ expected_revenue: 1234560, probability: 60, close_date: '2031-03-15', hot: true, stage: 'new' });
  });

  it('filters, searches, sorts and pages the list', async () => {
    const partyId = (await server.command(adminToken, 'party.search', {})).body.value.rows[0].id as string;
    const more = [
      { title: 'Small deal', expected_revenue: 5000, party: partyId },
      { title: 'Medium deal', expected_revenue: 250000, hot: false },
      { title: 'Renewal', expected_revenue: 99900, close_date: '2030-01-31' },
    ];
    for (const lead of more) expect((await server.command(adminToken, 'lead.create', lead)).status).toBe(200);

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Leads' }).click();
    await page.getByRole('heading', { name: 'Leads' }).waitFor();
    const titles = () => page.locator('table.data tbody tr td:first-child').allInnerTexts();
    await poll(titles).toHaveLength(4);
    await page.getByText('1–4 of 4').waitFor();

    // Sort by a column header: ascending, then descending.
    const revenueHeader = page.getByRole('columnheader', { name: /Expected revenue/ });
    await revenueHeader.getByRole('button').click();
    await poll(titles).toEqual(['Small deal', 'Renewal', 'Medium deal', 'Big deal']);
    expect(await revenueHeader.getAttribute('aria-sort')).toBe('ascending');
    await revenueHeader.getByRole('button').click();
    await poll(titles).toEqual(['Big deal', 'Medium deal', 'Renewal', 'Small deal']);
    expect(page.url()).toContain('sort=-expected_revenue');

    // The search box: `contains` on the title field.
    await page.getByRole('searchbox', { name: /Search leads/ }).fill('DEAL');
    await poll(titles).toEqual(['Big deal', 'Medium deal', 'Small deal']);

    // A filter built from the field's operators: money at least 1,000.00.
    await page.getByRole('button', { name: 'Filters' }).click();
    await page.getByLabel('Field').selectOption({ label: 'Expected revenue' });
    await page.getByLabel('Condition', { exact: true }).selectOption({ label: 'at least' });
    await page.getByLabel('Value').fill('1000');
    await shot('05-lead-list-filter');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await poll(titles).toEqual(['Big deal', 'Medium deal']);
    await page.getByText('1–2 of 2').waitFor();
    // Money is shown with two decimals; a bool as Yes/No; refs by the target's title.
    const bigRow = page.locator('table.data tbody tr', { hasText: 'Big deal' });
    expect(await bigRow.locator('td[data-label="Expected revenue"]').innerText()).toBe('12,345.60');
    expect(await bigRow.locator('td[data-label="Party"]').innerText()).toBe('Acme GmbH');

    // Filters and search survive a reload (they live in the URL).
    await page.reload();
    await poll(titles).toEqual(['Big deal', 'Medium deal']);

    // A select filter with "is any of" combined with the rest; nothing matches: the empty state says so.
    await page.getByRole('button', { name: 'Add condition' }).click();
    await page.getByLabel('Field').nth(1).selectOption({ label: 'Stage' });
    await page.getByLabel('Condition', { exact: true }).nth(1).selectOption({ label: 'is any of' });
    await page.getByRole('group', { name: 'Stage is any of' }).getByLabel('Won').check();
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText('No leads match your search and filters.').waitFor();
    await page.getByRole('button', { name: 'Clear search and filters' }).click();
    await poll(titles).toHaveLength(4);

    // Paging with the total from search.
    for (let index = 0; index < 24; index += 1) await server.command(adminToken, 'lead.create', { title: `Bulk lead ${String(index).padStart(2, '0')}` });
    await page.reload();
    await page.getByText('1–25 of 28').waitFor();
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByText('26–28 of 28').waitFor();
    await poll(titles).toHaveLength(3);
    await page.getByRole('button', { name: 'Previous' }).click();
    await page.getByText('1–25 of 28').waitFor();
    await shot('06-lead-list');
  });

  it('qualifies a lead and loses another with the required reason', async () => {
    await page.getByRole('searchbox', { name: /Search leads/ }).fill('Big deal');
    await page.getByRole('link', { name: 'Big deal' }).click();
    await page.getByRole('heading', { name: /Big deal/ }).waitFor();
    const actions = page.getByRole('group', { name: 'Workflow actions' });
    expect(await actions.getByRole('button').allInnerTexts()).toEqual(['Qualify', 'Lose…']);
    await actions.getByRole('button', { name: 'Qualify' }).click();
    await notice().getByText('“Big deal”: Stage is now Qualified.').waitFor();
    await poll(() => actions.getByRole('button').allInnerTexts()).toEqual(['Win', 'Lose…']);
    expect(await page.locator('dl.details .detail', { hasText: 'Stage' }).locator('dd').innerText()).toBe('Qualified');
    await shot('07-lead-record');
    expect((await server.command(adminToken, 'lead.search', { filter: [{ field: 'title', op: 'eq', value: 'Big deal' }] })).body.value.rows[0].stage).toBe('qualified');
    // Winning is final (no action leaves `won`), so it asks first.
    await actions.getByRole('button', { name: 'Win' }).click();
    const confirm = page.getByRole('dialog', { name: 'Win lead?' });
    await confirm.getByText('Stage of “Big deal” becomes Won').waitFor();
    await confirm.getByRole('button', { name: 'Win' }).click();
    await notice().getByText('“Big deal”: Stage is now Won.').waitFor();
    expect(await page.getByRole('group', { name: 'Workflow actions' }).count()).toBe(0);

    await page.goto('/records/lead?q=Renewal');
    await page.getByRole('link', { name: 'Renewal' }).click();
    await page.getByRole('group', { name: 'Workflow actions' }).getByRole('button', { name: 'Lose…' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('button', { name: 'Lose' }).click();
    await dialog.getByText('Lost reason is required').waitFor();
    await dialog.getByLabel('Lost reason').fill('Went with a competitor');
    await shot('08-action-dialog');
    await dialog.getByRole('button', { name: 'Lose' }).click();
    await notice().getByText('Stage is now Lost').waitFor();
    expect(await page.locator('dl.details .detail', { hasText: 'Lost reason' }).locator('dd').innerText()).toBe('Went with a competitor');
    expect(await page.getByRole('group', { name: 'Workflow actions' }).count()).toBe(0);
  });

  it("shows an agent's proposed delete in the inbox and approves it", async () => {
    const issued = await server.request('POST', '/api/auth/agent-token', { scopes: ['lead.*'], label: 'Cleanup bot' }, adminToken);
    expect(issued.status).toBe(200);
    const small = (await server.command(adminToken, 'lead.search', { filter: [{ field: 'title', op: 'eq', value: 'Small deal' }] })).body.value.rows[0];
    const proposal = await server.command(issued.body.token, 'lead.delete', { id: small.id });
    expect(proposal.status).toBe(202);
    expect(proposal.body).toMatchObject({ approval_required: true });
    const bulk = (await server.command(adminToken, 'lead.search', { filter: [{ field: 'title', op: 'eq', value: 'Bulk lead 00' }] })).body.value.rows[0];
    expect((await server.command(issued.body.token, 'lead.delete', { id: bulk.id })).status).toBe(202);

    await page.reload();
    const approvalsLink = page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: /Approvals/ });
    await approvalsLink.getByText('2', { exact: true }).waitFor();
    await approvalsLink.click();
    const card = page.locator('li.plan', { hasText: 'Small deal' });
    await card.getByRole('heading', { name: 'Delete lead “Small deal”' }).waitFor();
    await card.getByText('Cleanup bot').waitFor();
    // The record as it is now, so the person sees what would go.
    await card.getByText('Deletes this record:').waitFor();
    expect(await card.locator('dl.plan-input div', { hasText: 'Expected revenue' }).locator('dd').innerText()).toBe('50.00');
    await shot('09-approvals');
    await page.locator('li.plan', { hasText: 'Bulk lead 00' }).getByRole('button', { name: 'Reject' }).click();
    await notice().getByText('Rejected: Delete lead “Bulk lead 00”.').waitFor();
    await approvalsLink.getByText('1', { exact: true }).waitFor();
    // Approving a delete asks first, naming the record; cancelling leaves the plan pending.
    await card.getByRole('button', { name: 'Approve' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete lead “Small deal”?' });
    await confirm.getByText('Approving lets the agent “Cleanup bot” delete lead “Small deal”. This cannot be undone.').waitFor();
    await shot('09b-approve-delete-confirm');
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    expect(await page.getByRole('dialog').count()).toBe(0);
    expect((await server.command(adminToken, 'lead.get', { id: small.id })).status).toBe(200);
    await card.getByRole('button', { name: 'Approve' }).click();
    await confirm.getByRole('button', { name: 'Approve and delete' }).click();
    await notice().getByText('Approved: Delete lead “Small deal”.').waitFor();
    await page.getByText('Nothing is waiting for approval.').waitFor();
    // At 0 the badge stays, quietly: nothing waiting is not the same as not knowing.
    await poll(() => approvalsLink.locator('.badge').innerText()).toBe('0');
    expect(await approvalsLink.locator('.badge').getAttribute('class')).toContain('badge-zero');
    expect((await server.command(adminToken, 'lead.search', { filter: [{ field: 'id', op: 'eq', value: small.id }] })).body.value.total).toBe(0);

    await page.getByRole('button', { name: 'Decided' }).click();
    await page.locator('li.plan', { hasText: 'Small deal' }).getByText('Approved by admin').waitFor();
    await page.locator('li.plan', { hasText: 'Bulk lead 00' }).getByText('Rejected by admin').waitFor();
    expect((await server.command(adminToken, 'lead.get', { id: bulk.id })).status).toBe(200);
  });

  it('creates an agent token, shows it once with a copy button, and revokes it', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Agent tokens' }).click();
    await page.getByRole('heading', { name: 'Agent tokens', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Create token' }).click();
    await page.getByText('Give the token a label').waitFor();
    await page.getByLabel('Label').fill('Sales assistant');
    await page.getByRole('group', { name: 'Leads' }).getByRole('checkbox', { name: 'Leads' }).check();
    await page.getByRole('checkbox', { name: /^search/ }).first().waitFor();
    // Only what an agent can be given: no admin-only erase, no revert_batch; every other bulk command.
    const leadScopes = page.getByRole('group', { name: 'Leads' });
    expect(await leadScopes.getByRole('checkbox', { name: /^(erase|revert_batch)/ }).count()).toBe(0);
    for (const name of ['create_many', 'update_many', 'delete_many', 'qualify_many']) expect(await leadScopes.getByRole('checkbox', { name: new RegExp(`^${name}`) }).count(), name).toBe(1);
    await page.getByLabel('Expires after').selectOption('7');
    // Rate limits: empty is the server's (shown as the placeholder); a word is refused before sending.
    expect(await page.getByLabel('Requests a minute').getAttribute('placeholder')).toBe('600 (the server’s)');
    await page.getByLabel('Writes a minute').fill('many');
    await page.getByRole('button', { name: 'Create token' }).click();
    await page.getByText('Limits are whole numbers of calls a minute').waitFor();
    await page.getByLabel('Writes a minute').fill('30');
    // The most records one bulk plan names: empty is 100; 0 is refused before sending.
    expect(await page.getByLabel('Records per bulk command').getAttribute('placeholder')).toBe('100');
    await page.getByLabel('Records per bulk command').fill('0');
    await page.getByRole('button', { name: 'Create token' }).click();
    await page.getByText('The most records per bulk command is a whole number from 1').waitFor();
    await page.getByLabel('Records per bulk command').fill('25');
    await page.getByRole('button', { name: 'Create token' }).click();
    const tokenInput = page.getByRole('textbox', { name: 'Agent token' });
    await tokenInput.waitFor();
    const token = await tokenInput.inputValue();
    expect(token.length).toBeGreaterThan(20);
    await page.getByRole('button', { name: 'Copy', exact: true }).click();
    await page.getByRole('button', { name: 'Copied' }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(token);
    await shot('10-agent-token-issued');
    expect((await server.command(token, 'lead.search', {})).status).toBe(200);
    // Its scopes were the lead commands only.
    expect((await server.command(token, 'party.search', {})).status).toBe(404);

    await page.getByRole('button', { name: 'Done, I have saved it' }).click();
    expect(await tokenInput.count()).toBe(0);
    const row = page.locator('table.data tbody tr', { hasText: 'Sales assistant' });
    await row.getByText('Active').waitFor();
    await row.getByText('600 requests, 30 writes a minute').waitFor();
    await row.getByText('at most 25 records per bulk command').waitFor();
    const capped = await server.command(token, 'lead.update_many', { ids: ['x'], set: { probability: 1 }, max_affected: 26 });
    expect(capped.body).toEqual({ error: 'max_affected may be at most 25 for an agent' });
    await row.getByRole('button', { name: 'Revoke Sales assistant' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke' }).click();
    await row.getByText('Revoked').waitFor();
    await notice().getByText('Agent token “Sales assistant” revoked.').waitFor();
    expect((await server.command(token, 'lead.search', {})).status).toBe(401);
    await shot('11-agent-tokens');
  });

  it('shows the audit trail to an admin', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Audit trail' }).click();
    await page.getByRole('heading', { name: 'Audit trail' }).waitFor();
    await page.locator('table.data tbody tr').first().waitFor();
    await page.getByLabel('Outcome').selectOption('approved');
    await poll(() => page.locator('table.data tbody tr').count()).toBe(1);
    await page.locator('table.data tbody tr').getByText('lead.delete').waitFor();
    await page.getByLabel('Outcome').selectOption('');
    await page.getByLabel('Actor').selectOption('agent');
    await page.locator('table.data tbody tr', { hasText: 'Cleanup bot' }).first().waitFor();
    await shot('12-audit');
  });

  it('is readable at a phone width', async () => {
    const phone = await context.newPage();
    phone.setDefaultTimeout(10_000);
    await phone.setViewportSize(PHONE);
    try {
      // Same tab storage is per page: sign in again in this one.
      await phone.goto('/records/lead');
      await phone.getByLabel('Username').fill('admin');
      await phone.getByLabel('Password').fill(ADMIN_PASSWORD);
      await phone.getByRole('button', { name: 'Sign in' }).click();
      await phone.getByRole('heading', { name: 'Leads' }).waitFor();
      expect(await phone.getByRole('navigation', { name: 'Main' }).isVisible()).toBe(false);
      await phone.locator('table.data tbody tr').first().waitFor();
      await phone.screenshot({ path: join(SCREENSHOTS, '13-phone-list.png') });
      await phone.getByRole('button', { name: 'Menu' }).click();
      await phone.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Parties' }).waitFor();
      await phone.screenshot({ path: join(SCREENSHOTS, '14-phone-menu.png') });
      await phone.keyboard.press('Escape');
      expect(await phone.getByRole('navigation', { name: 'Main' }).isVisible()).toBe(false);
      // Sorting without column headers.
      await phone.getByLabel('Sort').selectOption({ label: 'Expected revenue ↓' });
      await poll(() => phone.locator('table.data tbody tr td:first-child').first().innerText()).toBe('Big deal');
      await phone.getByRole('button', { name: 'Menu' }).click();
      await phone.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Parties' }).click();
      await phone.getByRole('link', { name: 'Acme GmbH' }).click();
      await phone.getByRole('heading', { name: /Acme GmbH/ }).waitFor();
      const width = await phone.evaluate(() => document.documentElement.scrollWidth);
      expect(width).toBeLessThanOrEqual(PHONE.width);
      await shot('15-phone-record', phone);
    } finally {
      await phone.close();
    }
  });

  it('deletes a record after confirmation', async () => {
    await page.goto('/records/lead?q=Medium');
    await page.getByRole('link', { name: 'Medium deal' }).click();
    await page.getByRole('button', { name: 'Delete' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete lead?' });
    await dialog.getByText('“Medium deal” will be deleted.').waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect(await page.getByRole('dialog').count()).toBe(0);
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('heading', { name: 'Leads' }).waitFor();
    await notice().getByText('Lead “Medium deal” deleted.').waitFor();

    // A party its leads refer to cannot be deleted: the dialog says why and stays open.
    await page.goto('/records/party');
    await page.getByRole('link', { name: 'Acme GmbH' }).click();
    await page.getByRole('region', { name: 'Leads' }).getByRole('link', { name: 'Big deal' }).waitFor();
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByRole('alert').getByText(/is referred to by lead/).waitFor();
    await page.keyboard.press('Escape');
    expect(await page.getByRole('dialog').count()).toBe(0);
  });

  it('keeps what was typed in a form when the session ends: the same person signs in over the page and saves it', async () => {
    const lead = (await server.command(await server.login(), 'lead.create', { title: 'Kept across sign-in' })).body.value;
    await page.goto(`/records/lead/${lead.id}/edit`);
    await page.getByRole('heading', { name: 'Edit lead' }).waitFor();
    await page.getByLabel('Title').fill('Typed before the session ended');
    await page.getByLabel('Notes').fill('A long note, typed with care');
    const token = await page.evaluate(() => sessionStorage.getItem('rms.session'));
    await server.request('POST', '/api/auth/logout', {}, token!);
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Your session has expired. Please sign in again.').waitFor();
    // The page beneath is kept, but not shown: whoever comes to the screen next may not read it.
    expect(await page.locator('h1:has-text("Edit lead")').count()).toBe(1);
    expect(await page.locator('h1:has-text("Edit lead")').isVisible()).toBe(false);
    expect(await page.locator('.signed-in textarea').first().isVisible()).toBe(false);
    await shot('16b-session-expired-over-a-form');
    await page.getByLabel('Username').fill('admin');
    await page.getByLabel('Password').fill(ADMIN_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Edit lead' }).waitFor();
    expect(await page.getByLabel('Title').inputValue()).toBe('Typed before the session ended');
    expect(await page.getByLabel('Notes').inputValue()).toBe('A long note, typed with care');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('heading', { name: 'Typed before the session ended' }).waitFor();
    const saved = (await server.command(await server.login(), 'lead.get', { id: lead.id })).body.value;
    expect([saved.title, saved.notes]).toEqual(['Typed before the session ended', 'A long note, typed with care']);
  });

  it('returns to sign-in when the session ends, and signs out', async () => {
    const token = await page.evaluate(() => sessionStorage.getItem('rms.session'));
    expect(token).toBeTruthy();
    await server.request('POST', '/api/auth/logout', {}, token!);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Parties' }).click();
    await page.getByText('Your session has expired. Please sign in again.').waitFor();
    await shot('16-session-expired');
    // Signing in again continues where the person was.
    await page.getByLabel('Username').fill('admin');
    await page.getByLabel('Password').fill(ADMIN_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Parties' }).waitFor();

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByText('You have signed out.').waitFor();
    expect(await page.evaluate(() => sessionStorage.getItem('rms.session'))).toBeNull();
  });

  it('shows a person only what their roles allow', async () => {
    const db = openDatabase(`sqlite:${server.dbFile}`);
    try {
      await createPerson(db, { username: 'sam', password: 'sam-password-1', roles: ['sales'] });
    } finally {
      await db.destroy();
    }
    await page.getByLabel('Username').fill('sam');
    await page.getByLabel('Password').fill('sam-password-1');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Welcome, sam' }).waitFor();
    const nav = page.getByRole('navigation', { name: 'Main' });
    expect(await nav.getByRole('link', { name: 'Audit trail' }).count()).toBe(0);
    // Invoices are read-only for sales: no create button.
    await nav.getByRole('link', { name: 'Invoices' }).click();
    await page.getByText('No invoices yet.').waitFor();
    expect(await page.getByRole('link', { name: 'New invoice' }).count()).toBe(0);
    // Tax ID is not readable for sales: neither a column nor an input.
    await nav.getByRole('link', { name: 'Parties' }).click();
    await page.getByRole('link', { name: 'Acme GmbH' }).waitFor();
    expect(await page.getByRole('columnheader', { name: /Tax ID/ }).count()).toBe(0);
    await page.goto('/audit');
    await page.getByRole('heading', { name: 'Not found' }).waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByText('You have signed out.').waitFor();
  });

  it('shows the lockout message after five failed sign-ins', async () => {
    for (let attempt = 0; attempt < 5; attempt += 1) {
      await server.request('POST', '/api/auth/login', { username: 'admin', password: `wrong-${attempt}` });
    }
    await page.getByLabel('Username').fill('admin');
    await page.getByLabel('Password').fill(ADMIN_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('Too many failed sign-ins. This account is locked for a minute').waitFor();
  });
});
