/**
 * The web app as a new person finds it, at a laptop (1280 px) and a phone (390 px) width, in
 * Debian's Chromium against the real server: lists with a few key columns that people choose and
 * sort (remembered per person and model), money with its currency, a record's field grid without
 * holes, CSV export and import (mapping, dry run, progress, summary), the audit trail (changes by
 * default, exact times, record titles, inputs) and how few reads the app makes on its own.
 * Screenshots go to test/screenshots/ (git-ignored).
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPerson } from '../../runtime/auth/index.ts';
import { openDatabase } from '../../runtime/db/connect.ts';
import { CHROMIUM, expectNoSidewaysScroll, LAPTOP, launchChromium, PHONE, SCREENSHOTS, signIn } from '../helpers/browser.ts';
import { ADMIN_PASSWORD, startWebTestServer, type WebTestServer } from '../helpers/web-server.ts';


let server: WebTestServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let adminToken: string;
let acmeId: string;

const poll = <T>(read: () => Promise<T>) => expect.poll(read, { timeout: 10_000 });

/** A screenshot of the whole page (from the top, so the sticky bar stays where it belongs), or of the window. */
async function shot(name: string, target: Page = page, fullPage = true): Promise<void> {
  if (fullPage) await target.evaluate(() => window.scrollTo(0, 0));
  await target.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage });
}

async function newPage(viewport = LAPTOP): Promise<Page> {
  const created = await context.newPage();
  created.setDefaultTimeout(10_000);
  await created.setViewportSize(viewport);
  return created;
}

/** Nothing on the page is wider than the window: no sideways scrolling. */
/** The column headers' names (without the sort mark). */
const headers = async (target: Page = page) => (await target.locator('table.data thead th').allInnerTexts()).map((text) => text.replace(/\s*[▲▼]$/, ''));
const firstColumn = (target: Page = page) => target.locator('table.data tbody tr td:first-child').allInnerTexts();

/** The number of audit rows of reads the admin made so far. */
async function adminReads(): Promise<number> {
  const filter = JSON.stringify([
    { field: 'access', op: 'eq', value: 'read' },
    { field: 'username', op: 'eq', value: 'admin' },
  ]);
  const answer = await server.request('GET', `/api/audit?limit=1&filter=${encodeURIComponent(filter)}`, undefined, adminToken);
  expect(answer.status).toBe(200);
  return answer.body.total as number;
}

describe.skipIf(!existsSync(CHROMIUM))('web app usability in Chromium', () => {
  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    server = await startWebTestServer();
    adminToken = await server.login();
    const db = openDatabase(`sqlite:${server.dbFile}`);
    try {
      await createPerson(db, { username: 'sam', password: 'sam-password-1', roles: ['sales'] });
    } finally {
      await db.destroy();
    }
    acmeId = (await server.command(adminToken, 'party.create', { name: 'Acme GmbH', kind: 'company', email: 'sales@acme.example' })).body.value.id;
    const leads = [
      { title: 'Renewal of the enterprise support contract', party: acmeId, expected_revenue: 123450, probability: 40, close_date: '2031-06-30', hot: true, notes: 'Call back in spring' },
      { title: 'Pilot, phase "one"', expected_revenue: 500000, close_date: '2030-01-15' },
      { title: 'Small deal', expected_revenue: 5000, party: acmeId },
    ];
    for (const lead of leads) expect((await server.command(adminToken, 'lead.create', lead)).status).toBe(200);
    for (let index = 0; index < 27; index += 1) {
      expect((await server.command(adminToken, 'lead.create', { title: `Bulk deal ${String(index).padStart(2, '0')}`, expected_revenue: 1000 + index })).status).toBe(200);
    }
    browser = await launchChromium();
    context = await browser.newContext({ viewport: LAPTOP, baseURL: server.url, locale: 'en-US', timezoneId: 'UTC', acceptDownloads: true });
    page = await newPage();
    await signIn(page);
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('reads few records on its own: titles in one look-up per model, nothing fetched twice', async () => {
    // The start page counts each model's records (one search each)...
    // Signing in landed on the start page, which reads its counts: all of them arrive (and so are
    // audited: an answer comes after its audit row) before counting starts.
    const counts = page.locator('.card-count').filter({ hasText: /\brecords?\b/ });
    await poll(() => counts.count()).toBe(4);
    let before = await adminReads();
    await page.goto('/');
    await page.locator('.card-count', { hasText: '30 records' }).waitFor();
    await poll(() => counts.count()).toBe(4);
    expect((await adminReads()) - before).toBe(4);
    // A list: its search, and one look-up for the parties its rows name.
    before = await adminReads();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Leads' }).click();
    await page.locator('table.data tbody').getByRole('link', { name: 'Acme GmbH' }).first().waitFor();
    expect((await adminReads()) - before).toBe(2);
    // A record whose party the list already named: the record, its related invoices and its
    // history (whose create names the same party: no look-up).
    before = await adminReads();
    await page.getByRole('link', { name: 'Renewal of the enterprise support contract' }).click();
    await page.getByRole('region', { name: 'Invoices' }).getByText('No invoices.').waitFor();
    await page.locator('dl.details').getByRole('link', { name: 'Acme GmbH' }).waitFor();
    await page.getByRole('region', { name: 'History' }).getByText('created this lead').waitFor();
    expect((await adminReads()) - before).toBe(3);
    // Back at the start page, the counts are not fetched again (nothing changed meanwhile).
    before = await adminReads();
    await page.getByRole('link', { name: 'Records', exact: true }).click();
    await page.locator('.card-count', { hasText: '30 records' }).waitFor();
    expect((await adminReads()) - before).toBe(0);
  });

  it('shows money with its currency and a list hint from the module (optional meta fields)', async () => {
    const hinted = await newPage();
    try {
      // The server does not fill these in yet: the test adds them to the meta the app reads.
      await hinted.route('**/api/meta', async (route) => {
        const response = await route.fetch();
        const meta = await response.json();
        for (const model of meta.models) {
          if (model.name !== 'lead') continue;
          model.list = ['expected_revenue', 'hot'];
          for (const field of model.fields) if (field.name === 'expected_revenue') field.currency = 'EUR';
        }
        await route.fulfill({ response, json: meta });
      });
      await signIn(hinted, 'sam', 'sam-password-1', '/records/lead?q=Renewal');
      await poll(() => headers(hinted)).toEqual(['Title', 'Expected revenue', 'Hot']);
      expect(await hinted.locator('table.data tbody td.col-money').first().innerText()).toBe('€1,234.50');
      await shot('19-list-hint-currency', hinted);
      await hinted.getByRole('link', { name: 'Renewal of the enterprise support contract' }).click();
      expect(await hinted.locator('dl.details .detail', { hasText: 'Expected revenue' }).locator('dd').innerText()).toBe('€1,234.50');
      await hinted.getByRole('link', { name: 'Edit' }).click();
      await hinted.getByText('Expected revenue (EUR)').waitFor();
      expect(await hinted.getByLabel('Expected revenue').inputValue()).toBe('1234.50');
      await shot('20-money-currency-form', hinted);
    } finally {
      await hinted.close();
    }
  });

  it('lists the title and a few key fields; columns and sort are chosen by the person and remembered', async () => {
    await page.goto('/records/lead');
    // Defaults by kind: where it stands, what it is worth, when, with whom.
    await poll(() => headers()).toEqual(['Title', 'Party', 'Stage', 'Expected revenue', 'Close date']);
    await expectNoSidewaysScroll(page);
    const wrap = await page.locator('.table-wrap').evaluate((element) => ({ scrollWidth: element.scrollWidth, clientWidth: element.clientWidth }));
    expect(wrap.scrollWidth).toBeLessThanOrEqual(wrap.clientWidth);
    // The long title stays on one line at this width.
    const titleCell = page.locator('td.col-title', { hasText: 'Renewal of the enterprise' });
    const lineHeight = await page.locator('td.col-title', { hasText: 'Small deal' }).evaluate((element) => element.getBoundingClientRect().height);
    expect(await titleCell.evaluate((element) => element.getBoundingClientRect().height)).toBeLessThanOrEqual(lineHeight + 1);
    await shot('21-list-default-columns');

    await page.getByRole('button', { name: 'Columns' }).click();
    const chooser = page.getByRole('group', { name: 'Columns' });
    expect(await chooser.getByRole('checkbox', { name: 'Title' }).isDisabled()).toBe(true);
    expect(await chooser.getByRole('checkbox', { name: 'Notes' }).isChecked()).toBe(false);
    await chooser.getByRole('checkbox', { name: 'Probability (%)' }).check();
    await chooser.getByRole('checkbox', { name: 'Close date' }).uncheck();
    await poll(() => headers()).toEqual(['Title', 'Party', 'Stage', 'Expected revenue', 'Probability (%)']);
    await shot('22-list-columns-chooser');

    // Sort by a header: ascending, then descending.
    const revenue = page.getByRole('columnheader', { name: /Expected revenue/ });
    await revenue.getByRole('button').click();
    await poll(() => firstColumn().then((titles) => titles[0])).toBe('Bulk deal 00');
    await revenue.getByRole('button').click();
    await poll(() => firstColumn().then((titles) => titles[0])).toBe('Pilot, phase "one"');
    expect(await revenue.getAttribute('aria-sort')).toBe('descending');

    // Remembered for this person and model: a fresh visit without the URL's sort keeps both.
    await page.goto('/records/lead');
    await poll(() => headers()).toEqual(['Title', 'Party', 'Stage', 'Expected revenue', 'Probability (%)']);
    await poll(() => firstColumn().then((titles) => titles[0])).toBe('Pilot, phase "one"');
    expect(await page.getByRole('columnheader', { name: /Expected revenue/ }).getAttribute('aria-sort')).toBe('descending');
    expect(JSON.parse((await page.evaluate(() => localStorage.getItem('rms.list.admin.lead')))!)).toEqual({ columns: ['party', 'stage', 'expected_revenue', 'probability'], sort: '-expected_revenue' });
    // Another model keeps its own defaults.
    await page.goto('/records/party');
    // The CRM module's list hint for parties, in its order (kind, email, phone), not the model's (email, phone, kind).
    await poll(() => headers()).toEqual(['Name', 'Kind', 'Email', 'Phone']);
    await page.getByRole('button', { name: 'Columns' }).click();
    expect(await page.getByRole('group', { name: 'Columns' }).getByRole('checkbox').evaluateAll((boxes) => boxes.map((box) => box.parentElement!.textContent))).toEqual([
      'Name',
      'Kind',
      'Email',
      'Phone',
      'Tax ID',
      'Notes',
    ]);

    // Another person on the same browser has their own.
    const other = await newPage();
    try {
      await signIn(other, 'sam', 'sam-password-1', '/records/lead');
      await poll(() => headers(other)).toEqual(['Title', 'Party', 'Stage', 'Expected revenue', 'Close date']);
    } finally {
      await other.close();
    }

    // And back to the default columns.
    await page.goto('/records/lead');
    await page.getByRole('button', { name: 'Columns' }).click();
    await page.getByRole('button', { name: 'Back to the default columns' }).click();
    await poll(() => headers()).toEqual(['Title', 'Party', 'Stage', 'Expected revenue', 'Close date']);
  });

  it('fits lists, records and the audit trail in a phone without sideways scrolling', async () => {
    const phone = await newPage(PHONE);
    try {
      await signIn(phone, 'admin', ADMIN_PASSWORD, '/records/lead');
      await phone.locator('table.data tbody tr').first().waitFor();
      await expectNoSidewaysScroll(phone);
      await phone.screenshot({ path: join(SCREENSHOTS, '23-phone-list-columns.png') });
      await phone.getByRole('button', { name: 'Columns' }).click();
      await phone.getByRole('group', { name: 'Columns' }).waitFor();
      await expectNoSidewaysScroll(phone);
      await phone.screenshot({ path: join(SCREENSHOTS, '24-phone-columns-chooser.png') });

      await phone.goto('/records/lead?q=Renewal');
      await phone.getByRole('link', { name: 'Renewal of the enterprise support contract' }).click();
      await phone.locator('dl.details').waitFor();
      await expectNoSidewaysScroll(phone);
      await shot('25-phone-record', phone);

      await phone.goto('/audit');
      await phone.locator('table.data tbody tr').first().waitFor();
      await phone.locator('.audit-input summary').first().click();
      await expectNoSidewaysScroll(phone);
      await shot('26-phone-audit', phone, false);
    } finally {
      await phone.close();
    }
  });

  it('says a page past the end of a list is past it, and leads back to the first (an old link, a last page emptied)', async () => {
    await page.goto('/records/lead?page=999');
    await page.getByText('No leads on page 999: the list ends before it.').waitFor();
    expect(await page.locator('.pager-range').innerText()).toMatch(/^none of \d+ on this page$/);
    expect(await page.locator('.pager-page').innerText()).toMatch(/^Page 999, past the last \(\d+\)$/);
    await page.getByRole('button', { name: 'Go to the first page' }).click();
    await poll(() => page.locator('.pager-range').innerText()).toMatch(/^1–\d+ of \d+$/);
  });

  it('leaves no empty cell in a record’s field grid', async () => {
    /** Each row of the grid is filled: its cells' widths add up to the grid's width. */
    const gridRows = (target: Page) =>
      target.locator('dl.details').evaluate((grid) => {
        const width = grid.clientWidth;
        const rows = new Map<number, number>();
        grid.querySelectorAll<HTMLElement>('.detail').forEach((cell) => rows.set(cell.offsetTop, (rows.get(cell.offsetTop) ?? 0) + cell.offsetWidth));
        return [...rows.values()].map((sum) => Math.abs(width - sum) <= 2);
      });
    // A lead: eight short fields and its notes; a party: five short fields and its notes (odd).
    for (const [path, name] of [
      ['/records/lead?q=Renewal', 'Renewal of the enterprise support contract'],
      ['/records/party', 'Acme GmbH'],
    ] as const) {
      await page.goto(path);
      await page.getByRole('link', { name }).first().click();
      await page.locator('dl.details').waitFor();
      const filled = await gridRows(page);
      expect(filled.length).toBeGreaterThan(2);
      expect(filled.every(Boolean)).toBe(true);
    }
    await shot('27-record-grid-party');
    await page.goto('/records/lead?q=Renewal');
    await page.getByRole('link', { name: 'Renewal of the enterprise support contract' }).click();
    await page.locator('dl.details').waitFor();
    expect(await page.locator('dl.details dt').allInnerTexts()).toEqual(['Title', 'Party', 'Stage', 'Expected revenue', 'Probability (%)', 'Close date', 'Hot', 'Lost reason', 'Notes']);
    await shot('28-record-grid-lead');
  });

  it('exports a list, filtered and sorted, all pages of it, to CSV', async () => {
    await page.goto('/records/lead?sort=-expected_revenue');
    await page.getByRole('button', { name: 'Filters' }).click();
    await page.getByLabel('Field').selectOption({ label: 'Expected revenue' });
    await page.getByLabel('Condition', { exact: true }).selectOption({ label: 'at least' });
    await page.getByLabel('Value').fill('10.03');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText('1–25 of 27').waitFor();
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
    expect(download.suggestedFilename()).toMatch(/^leads-\d{4}-\d{2}-\d{2}\.csv$/);
    await notice().getByText('Exported 27 leads to CSV.').waitFor();
    const bytes = readFileSync((await download.path())!);
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const text = bytes.toString('utf8').slice(1);
    const lines = text.split('\r\n');
    expect(lines[0]).toBe('ID,Title,Party,Stage,Expected revenue,Probability (%),Close date,Hot,Notes,Lost reason');
    // Every page, in the list's order: 27 records and the empty string after the last CRLF.
    expect(lines).toHaveLength(29);
    expect(lines[1]).toMatch(/^\w+,"Pilot, phase ""one""",,new,5000\.00,,2030-01-15,,,$/);
    expect(lines[2]).toMatch(new RegExp(`^\\w+,Renewal of the enterprise support contract,${acmeId},new,1234\\.50,40,2031-06-30,true,Call back in spring,$`));
    expect(lines[27]).toMatch(/^\w+,Bulk deal 03,,new,10\.03,,,,,$/);
  });

  it('imports a CSV: column mapping, a dry run naming the failing rows, progress, and a summary', async () => {
    const csv = [
      'Title;Expected revenue;close_date;HOT;Party;Notes;Source',
      `Imported one;"1,234.50";2032-01-31;yes;${acmeId};"Two lines:\r\nfirst; second";fair`,
      'Imported two;99;;0;;;web',
      'Bad amount;12.345;;;;;',
      ';10;;;;;no title',
      `Bad party;1;;;no-such-party;;`,
      'Imported three;;2032-02-29;;;"She said ""hi""";',
      'Bad date;;2031-02-30;;;;',
    ].join('\r\n');
    const phone = await newPage(PHONE);
    try {
      await signIn(phone, 'admin', ADMIN_PASSWORD, '/records/lead');
      await phone.getByRole('link', { name: 'Import CSV' }).click();
      await phone.getByRole('heading', { name: 'Import leads' }).waitFor();
      await phone.getByLabel('CSV file').setInputFiles({ name: 'leads.csv', mimeType: 'text/csv', buffer: Buffer.from(csv, 'utf8') });
      // Columns matched by name or label, in any case; the unknown one is left out.
      const fieldFor = (column: string) => phone.getByRole('combobox', { name: `Field for column ${column}` });
      expect(await fieldFor('Title').inputValue()).toBe('title');
      expect(await fieldFor('Expected revenue').inputValue()).toBe('expected_revenue');
      expect(await fieldFor('close_date').inputValue()).toBe('close_date');
      expect(await fieldFor('HOT').inputValue()).toBe('hot');
      expect(await fieldFor('Source').inputValue()).toBe('');
      await phone.getByText('Expects an amount in major units, like 1,234.50').waitFor();
      await expectNoSidewaysScroll(phone);
      await shot('29-phone-import-mapping', phone);

      await phone.getByRole('button', { name: 'Check 7 rows' }).click();
      await phone.getByText('3 of 7 rows can be imported; 4 would fail.').waitFor();
      const failures = phone.getByRole('table', { name: 'Rows that would fail' }).locator('tbody tr');
      expect(await failures.allInnerTexts()).toEqual([
        expect.stringMatching(/^5\s+Expected revenue: “12\.345” has more than 2 decimals; nothing is rounded$/),
        expect.stringMatching(/^6\s+Title is required$/),
        expect.stringMatching(/^7\s+Party: no party has the id or name “no-such-party”$/),
        expect.stringMatching(/^9\s+Close date must be a real calendar date/),
      ]);
      // The dry run stored nothing and audited nothing.
      expect((await server.command(adminToken, 'lead.search', { filter: [{ field: 'title', op: 'contains', value: 'Imported' }] })).body.value.total).toBe(0);
      await expectNoSidewaysScroll(phone);
      await shot('30-phone-import-check', phone);

      await phone.getByRole('button', { name: 'Import 3 rows' }).click();
      await phone.getByText('3 created · 4 failed').waitFor();
      expect(await phone.getByRole('progressbar', { name: 'Import progress' }).getAttribute('value')).toBe('3');
      await notice(phone).getByText('3 leads imported.').waitFor();
      await expectNoSidewaysScroll(phone);
      await shot('31-phone-import-summary', phone);
      await phone.setViewportSize(LAPTOP);
      await expectNoSidewaysScroll(phone);
      await shot('32-import-summary', phone);

      const [failed] = await Promise.all([phone.waitForEvent('download'), phone.getByRole('button', { name: 'Download failed rows (CSV)' }).click()]);
      const failedText = readFileSync((await failed.path())!, 'utf8');
      expect(failedText.split('\r\n')[0]).toBe('\uFEFFTitle,Expected revenue,close_date,HOT,Party,Notes,Source,Error');
      expect(failedText).toContain('\r\nBad amount,12.345,,,,,,Expected revenue: “12.345” has more than 2 decimals; nothing is rounded\r\n');
      expect(failedText.split('\r\n')).toHaveLength(6);
    } finally {
      await phone.close();
    }
    // Each row went through create: stored as typed, and in the audit trail as a change.
    const stored = (await server.command(adminToken, 'lead.search', { filter: [{ field: 'title', op: 'contains', value: 'Imported' }], order: [{ field: 'title', dir: 'asc' }] })).body.value.rows;
    expect(stored).toMatchObject([
      { title: 'Imported one', expected_revenue: 123450, close_date: '2032-01-31', hot: true, party: acmeId, notes: 'Two lines:\r\nfirst; second', stage: 'new' },
      { title: 'Imported three', expected_revenue: null, close_date: '2032-02-29', notes: 'She said "hi"' },
      { title: 'Imported two', expected_revenue: 9900, hot: false, party: null },
    ]);
    const creates = await server.request('GET', `/api/audit?filter=${encodeURIComponent(JSON.stringify([{ field: 'command', op: 'eq', value: 'lead.create' }, { field: 'outcome', op: 'eq', value: 'executed' }]))}`, undefined, adminToken);
    expect(creates.body.rows.filter((row: { record_title: string }) => row.record_title?.startsWith('Imported'))).toHaveLength(3);
  });

  it('shows the audit trail: changes by default, exact times, record titles and inputs; reads on request', async () => {
    await page.goto('/audit');
    const rows = page.locator('table.data tbody tr');
    await rows.first().waitFor();
    const commands = await page.locator('table.data tbody td[data-label="Command"]').allInnerTexts();
    expect(commands.length).toBeGreaterThan(3);
    expect(commands.filter((name) => /\.(get|list|search)$/.test(name))).toEqual([]);
    // To the second, with the full ISO time on hover.
    const when = rows.first().locator('time');
    expect(await when.innerText()).toMatch(/^[A-Z][a-z]{2} \d{1,2}, \d{4}, \d{2}:\d{2}:\d{2} [AP]M$/);
    expect(await when.getAttribute('title')).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
    // The record by its title, linked; the input as stored.
    const created = rows.filter({ hasText: 'Imported one' }).first();
    await created.getByRole('link', { name: 'Imported one' }).waitFor();
    await created.locator('.audit-input summary').click();
    expect(await created.locator('.audit-input pre').innerText()).toContain('"expected_revenue": 123450');
    await expectNoSidewaysScroll(page);
    await shot('33-audit-changes');

    await page.getByLabel('Show').selectOption({ label: 'Changes and reads' });
    await page.locator('table.data tbody td[data-label="Command"]', { hasText: 'lead.search' }).first().waitFor();
    expect(page.url()).toContain('access=all');
    await page.getByLabel('Show').selectOption({ label: 'Reads' });
    await poll(async () => (await page.locator('table.data tbody td[data-label="Command"]').allInnerTexts()).every((name) => /\.(get|list|search|history)$/.test(name))).toBe(true);
    await expectNoSidewaysScroll(page);
    await shot('34-audit-reads');
  });

  it('asks before approving a delete, naming the record, and keeps the pending badge at 0', async () => {
    const issued = await server.request('POST', '/api/auth/agent-token', { scopes: ['lead.*'], label: 'Tidy bot' }, adminToken);
    const small = (await server.command(adminToken, 'lead.search', { filter: [{ field: 'title', op: 'eq', value: 'Small deal' }] })).body.value.rows[0];
    expect((await server.command(issued.body.token, 'lead.delete', { id: small.id })).status).toBe(202);
    const phone = await newPage(PHONE);
    try {
      await signIn(phone, 'admin', ADMIN_PASSWORD, '/approvals');
      const card = phone.locator('li.plan', { hasText: 'Small deal' });
      await card.getByRole('button', { name: 'Approve' }).click();
      const confirm = phone.getByRole('dialog', { name: 'Delete lead “Small deal”?' });
      await confirm.getByText('Approving lets the agent “Tidy bot” delete lead “Small deal”. This cannot be undone.').waitFor();
      await expectNoSidewaysScroll(phone);
      await shot('35-phone-approve-delete-confirm', phone, false);
      await confirm.getByRole('button', { name: 'Approve and delete' }).click();
      await notice(phone).getByText('Approved: Delete lead “Small deal”.').waitFor();
      expect((await server.command(adminToken, 'lead.get', { id: small.id })).status).toBe(400);
      await phone.getByRole('button', { name: 'Menu' }).click();
      const badge = phone.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: /Approvals/ }).locator('.badge');
      await poll(() => badge.innerText()).toBe('0');
      expect(await badge.getAttribute('aria-label')).toBe('0 pending');
      await shot('36-phone-menu-badge-zero', phone, false);
    } finally {
      await phone.close();
    }
  });
});

/** The app's success/error notice. */
function notice(target: Page = page) {
  return target.locator('.notice');
}
