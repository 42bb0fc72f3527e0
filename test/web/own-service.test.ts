/**
 * The web app as a service of one's own presents it, at a laptop (1280 px) and a phone (390 px)
 * width, in Debian's Chromium against the real server: the service's name, colour and locale
 * (`serve --name/--colour/--locale`) from the sign-in page on; menus only for what the person's
 * role can use; amounts as people type them; select options in their declared order; CSV that
 * spreadsheets read as meant (phone numbers as values, formulas defused) and imports that name
 * every column they leave out and take refs by title; the audit trail's details unclipped.
 * Screenshots go to test/screenshots/ (git-ignored).
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceInfo } from '../../runtime/api-shapes.ts';
import { createPerson } from '../../runtime/auth/index.ts';
import { openDatabase } from '../../runtime/db/connect.ts';
import type { Registry } from '../../runtime/registry.ts';
import { registry as fixtureRegistry } from '../fixtures/generated/registry.ts';
import { CHROMIUM, expectNoSidewaysScroll, LAPTOP, launchChromium, PHONE, SCREENSHOTS, signIn } from '../helpers/browser.ts';
import { ADMIN_PASSWORD, startWebTestServer, type WebTestServer } from '../helpers/web-server.ts';

const SERVICE: ServiceInfo = { name: 'Acme Lettings', colour: '#f4c542', locale: 'en-GB' };

/**
 * The fixture modules with one more role, as a module of one's own may declare: a clerk who looks
 * parties, leads and invoices up and writes nothing. Any write would make some agent's plan theirs
 * to decide: an update implies its revert, a create its create_many and an action its
 * `<action>_many`, which agents only propose.
 */
const registry: Registry = {
  ...fixtureRegistry,
  roles: {
    ...fixtureRegistry.roles,
    clerk: ['party.get', 'party.list', 'party.search', 'lead.get', 'lead.list', 'lead.search', 'invoice.get', 'invoice.search'],
  },
};

const PEOPLE = [
  { username: 'clara', password: 'clara-password-1', roles: ['clerk'] },
  { username: 'sam', password: 'sam-password-1', roles: ['sales'] },
  { username: 'nora', password: 'nora-password-1', roles: [] },
];

let server: WebTestServer;
let browser: Browser;
let context: BrowserContext;
let adminToken: string;
let acmeId: string;

const poll = <T>(read: () => Promise<T>) => expect.poll(read, { timeout: 10_000 });

async function newPage(viewport = LAPTOP): Promise<Page> {
  const created = await context.newPage();
  created.setDefaultTimeout(10_000);
  await created.setViewportSize(viewport);
  return created;
}

/** The admin's page at each width: signed in once (by the first test, through the sign-in page) and reused. */
const adminPages = new Map<string, Page>();

async function adminPage(width: 'laptop' | 'phone', path: string): Promise<Page> {
  let page = adminPages.get(width);
  if (!page) {
    page = await newPage(width === 'laptop' ? LAPTOP : PHONE);
    await signIn(page, 'admin', ADMIN_PASSWORD, path);
    adminPages.set(width, page);
  } else {
    // Another page was in front since (a phone page, a role's page): Chromium then took some 2 s
    // for each action's "visible, enabled and stable" check on this one (pw:api log).
    await page.bringToFront();
    await page.goto(path);
  }
  return page;
}

/** A page signed in as `username` without the sign-in form (its session token put where the app keeps it), at `path`. */
async function pageAs(username: string, viewport: typeof LAPTOP, path = '/'): Promise<Page> {
  const person = PEOPLE.find((candidate) => candidate.username === username)!;
  const token = await server.login(person.username, person.password);
  const page = await newPage(viewport);
  await page.addInitScript((session) => sessionStorage.setItem('rms.session', session), token);
  await page.goto(path);
  await page.locator('nav#sidebar').waitFor({ state: 'attached' });
  return page;
}

async function shot(target: Page, name: string, fullPage = true): Promise<void> {
  if (fullPage) await target.evaluate(() => window.scrollTo(0, 0));
  await target.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage });
}

/** The main menu's links, opened first on a phone. */
async function menuLinks(target: Page): Promise<string[]> {
  const menu = target.getByRole('navigation', { name: 'Main' });
  if (!(await menu.isVisible())) await target.getByRole('button', { name: 'Menu' }).click();
  await menu.getByRole('link').first().waitFor();
  return (await menu.getByRole('link').allInnerTexts()).map((text) => text.replace(/\s*\d+$/, '').trim());
}

const search = async (model: string, filter: unknown[]) => (await server.command(adminToken, `${model}.search`, { filter, limit: 100 })).body.value.rows as Record<string, unknown>[];

describe.skipIf(!existsSync(CHROMIUM))('a service of one’s own in Chromium', () => {
  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    server = await startWebTestServer({ registry, serviceInfo: SERVICE });
    adminToken = await server.login();
    const db = openDatabase(`sqlite:${server.dbFile}`);
    try {
      for (const person of PEOPLE) await createPerson(db, person);
    } finally {
      await db.destroy();
    }
    acmeId = (await server.command(adminToken, 'party.create', { name: 'Acme GmbH', kind: 'company' })).body.value.id;
    for (const name of ['Twin Ltd', 'Twin Ltd']) expect((await server.command(adminToken, 'party.create', { name, kind: 'company' })).status).toBe(200);
    expect((await server.command(adminToken, 'lead.create', { title: 'Roof repair', party: acmeId, expected_revenue: 123450, close_date: '2031-06-30' })).status).toBe(200);
    browser = await launchChromium();
    // The browser says en-US: the service's en-GB wins.
    context = await browser.newContext({ viewport: LAPTOP, baseURL: server.url, locale: 'en-US', timezoneId: 'UTC', acceptDownloads: true });
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('answers what the service calls itself before sign-in, and in meta', async () => {
    const service = await server.request('GET', '/api/service');
    expect([service.status, service.body]).toEqual([200, SERVICE]);
    const meta = await server.request('GET', '/api/meta', undefined, adminToken);
    expect(meta.body.service).toEqual(SERVICE);
    expect(meta.body.decides_plans).toBe(true);
    // Whether the person may decide some agent's plan: the clerk writes nothing; sales may delete.
    const decides = Object.fromEntries(
      await Promise.all(PEOPLE.map(async (person) => [person.username, (await server.request('GET', '/api/meta', undefined, await server.login(person.username, person.password))).body.decides_plans])),
    );
    expect(decides).toEqual({ clara: false, sam: true, nora: false });
  });

  it.each([
    ['laptop', LAPTOP],
    ['phone', PHONE],
  ] as const)('shows the service’s name, colour and locale from the sign-in page on (%s)', async (width, viewport) => {
    const page = await newPage(viewport);
    {
      await page.goto('/');
      await page.getByRole('heading', { name: 'Acme Lettings' }).waitFor();
      expect(await page.title()).toBe('Sign in · Acme Lettings');
      expect(await page.locator('meta[name="theme-color"]').getAttribute('content')).toBe('#f4c542');
      await shot(page, `40-${width}-sign-in-service-name`);
      await signIn(page, 'admin', ADMIN_PASSWORD, '/records/lead');
      adminPages.set(width, page);
      const brand = page.locator('.topbar .brand');
      expect(await brand.innerText()).toBe('Acme Lettings');
      expect(await page.title()).toBe('Leads · Acme Lettings');
      // A light colour gets dark text.
      expect(await page.locator('.topbar').evaluate((bar) => getComputedStyle(bar).backgroundColor)).toBe('rgb(244, 197, 66)');
      expect(await brand.evaluate((link) => getComputedStyle(link).color)).toBe('rgb(0, 0, 0)');
      await page.getByRole('link', { name: 'Roof repair' }).click();
      const detail = (label: string) => page.locator('dl.details .detail', { hasText: label }).locator('dd').innerText();
      expect(await detail('Close date')).toBe('30 Jun 2031');
      expect(await detail('Expected revenue')).toBe('1,234.50');
      expect(await page.evaluate(() => document.documentElement.lang)).toBe('en-GB');
      await expectNoSidewaysScroll(page);
      await shot(page, `41-${width}-record-service-locale`);
    }
  });

  it.each([
    ['laptop', LAPTOP],
    ['phone', PHONE],
  ] as const)('shows only the menus a role can use (%s)', async (width, viewport) => {
    // A clerk writes nothing: no plan is ever theirs to decide, so no Approvals (and no polling of it).
    const asked: string[] = [];
    context.on('request', (request) => asked.push(new URL(request.url()).pathname));
    const clerk = await pageAs('clara', viewport);
    try {
      expect(await menuLinks(clerk)).toEqual(['Parties', 'Leads', 'Invoices', 'Agent tokens']);
      await expectNoSidewaysScroll(clerk);
      await shot(clerk, `42-${width}-clerk-menu`, false);
      expect(await clerk.locator('.card-count').count()).toBeGreaterThan(0);
      await clerk.goto('/approvals');
      await clerk.getByRole('heading', { name: 'Not found' }).waitFor();
      expect(asked.filter((path) => path.startsWith('/api/plans'))).toEqual([]);
    } finally {
      context.removeAllListeners('request');
      await clerk.close();
    }
    // The other roles' menus are the same at a phone's width.
    if (width === 'phone') return;

    // Sales may delete leads, which agents only propose: their inbox.
    const sales = await pageAs('sam', viewport);
    try {
      expect(await menuLinks(sales)).toEqual(['Parties', 'Leads', 'Invoices', 'Orders', 'Approvals', 'Agent tokens']);
    } finally {
      await sales.close();
    }

    // A person without a role: nothing to give an agent either.
    const none = await pageAs('nora', viewport);
    try {
      await none.getByText('There is nothing here you may see yet.').waitFor();
      expect(await none.getByRole('navigation', { name: 'Main' }).getByRole('link').count()).toBe(0);
      await none.goto('/agent-tokens');
      await none.getByRole('heading', { name: 'Not found' }).waitFor();
    } finally {
      await none.close();
    }
  });

  it('shows an audit entry’s details whole at 1280 px: nothing cut off or scrolled out of sight', async () => {
    const issued = await server.request('POST', '/api/auth/agent-token', { scopes: ['lead.*'], label: 'Intake bot with a rather long label' }, adminToken);
    const notes = `Tenant asked for ${'a very long description of the repair '.repeat(6)}and a callback before noon: https://example.com/tickets/${'x'.repeat(80)}`;
    expect((await server.command(issued.body.token, 'lead.create', { title: 'Boiler replacement for the third floor flat', notes, expected_revenue: 99999999, close_date: '2031-12-31' })).status).toBe(200);
    expect((await server.command(issued.body.token, 'lead.update', { id: 'no-such-lead', title: 'x' })).status).not.toBe(200);
    const page = await adminPage('laptop', '/audit?access=all&actor=agent');
    {
      const rows = page.locator('table.data tbody tr');
      await rows.first().waitFor();
      for (const row of await rows.all()) {
        const input = row.locator('.audit-input');
        if ((await input.count()) > 0) await input.locator('summary').click();
      }
      const wrap = page.locator('.table-wrap');
      const { scrollWidth, clientWidth } = await wrap.evaluate((element) => ({ scrollWidth: element.scrollWidth, clientWidth: element.clientWidth }));
      expect(scrollWidth).toBeLessThanOrEqual(clientWidth);
      const wrapBox = (await wrap.boundingBox())!;
      for (const detail of await page.locator('td.audit-details').all()) {
        const box = (await detail.boundingBox())!;
        expect(box.x + box.width).toBeLessThanOrEqual(wrapBox.x + wrapBox.width + 1);
        for (const part of await detail.locator('pre, p, summary').all()) {
          expect(await part.evaluate((element) => element.scrollWidth <= element.clientWidth + 1)).toBe(true);
        }
      }
      await page.locator('.audit-input pre', { hasText: '"notes": "NOTES_1"' }).waitFor();
      // The details take two fifths of the table, and an opened input's lines read whole.
      expect((await page.locator('td.audit-details').first().boundingBox())!.width).toBeGreaterThanOrEqual(wrapBox.width * 0.38 - 1);
      const linesOf = (text: string) =>
        page.locator('.audit-input pre', { hasText: text }).evaluate((pre, wanted) => {
          const node = pre.firstChild!;
          const range = document.createRange();
          const at = node.textContent!.indexOf(wanted);
          range.setStart(node, at);
          range.setEnd(node, at + wanted.length);
          return new Set(Array.from(range.getClientRects(), (rect) => Math.round(rect.top))).size;
        }, text);
      expect(await linesOf('"close_date": "2031-12-31"')).toBe(1);
      expect(await linesOf('"expected_revenue": 99999999')).toBe(1);
      // Closed, an input shows as much of itself as the column holds.
      await page.locator('.audit-input summary').first().click();
      expect(await page.locator('.audit-input summary').first().evaluate((summary) => summary.clientWidth)).toBeGreaterThan(300);
      await expectNoSidewaysScroll(page);
      await shot(page, '43-audit-details-1280');
    }
  });

  it.each(['laptop', 'phone'] as const)('takes amounts as people mean them and sends minor units; more decimals are refused beside the field (%s)', async (width) => {
    const page = await adminPage(width, '/records/lead/new');
    {
      const title = `Amounts ${width}`;
      await page.getByLabel('Title').fill(title);
      const revenue = page.getByLabel('Expected revenue');
      await revenue.fill('950.001');
      await page.getByRole('button', { name: 'Create lead' }).click();
      await page.locator('.field-money .field-error').getByText('Expected revenue takes at most 2 decimals; nothing is rounded').waitFor();
      expect(await revenue.getAttribute('aria-invalid')).toBe('true');
      expect(await search('lead', [{ field: 'title', op: 'eq', value: title }])).toEqual([]);
      await expectNoSidewaysScroll(page);
      await shot(page, `44-${width}-money-too-many-decimals`, false);
      await revenue.fill('1,200.50');
      await page.getByRole('button', { name: 'Create lead' }).click();
      await page.locator('dl.details').waitFor();
      expect(await search('lead', [{ field: 'title', op: 'eq', value: title }])).toMatchObject([{ expected_revenue: 120050 }]);
      // The rest reads the same at a phone's width.
      if (width === 'phone') return;
      await page.getByRole('link', { name: 'Edit' }).click();
      expect(await revenue.inputValue()).toBe('1200.50');
      await revenue.fill('950.00');
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.locator('dl.details').waitFor();
      expect(await search('lead', [{ field: 'title', op: 'eq', value: title }])).toMatchObject([{ expected_revenue: 95000 }]);

      // A link that fills the amount (as a related list fills its ref) means 950.00 euros, not 9.50.
      const number = 'INV-950';
      await page.goto(`/records/invoice/new?party=${acmeId}&number=${number}&issue_date=2031-01-15&amount=950.00`);
      expect(await page.getByLabel('Amount').inputValue()).toBe('950.00');
      await page.getByRole('button', { name: 'Create invoice' }).click();
      await page.locator('dl.details').waitFor();
      expect(await page.locator('dl.details .detail', { hasText: 'Amount' }).locator('dd').innerText()).toBe('€950.00');
      expect(await search('invoice', [{ field: 'number', op: 'eq', value: number }])).toMatchObject([{ amount: 95000 }]);

      // The list's filter takes amounts the same way.
      await page.goto('/records/lead');
      await page.getByRole('button', { name: 'Filters' }).click();
      await page.getByLabel('Field').selectOption({ label: 'Expected revenue' });
      await page.getByLabel('Condition', { exact: true }).selectOption({ label: 'at least' });
      await page.getByLabel('Value').fill('950.001');
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await page.getByRole('alert').getByText('Expected revenue takes at most 2 decimals; nothing is rounded').waitFor();
      await page.getByLabel('Value').fill('1,000');
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await poll(async () => new URL(page.url()).searchParams.get('f')).toBe(JSON.stringify([{ field: 'expected_revenue', op: 'gte', value: 100000 }]));
    }
  });

  it.each(['laptop', 'phone'] as const)('offers select options in their declared order in inputs, filters and chips (%s)', async (width) => {
    const page = await adminPage(width, '/records/party/new');
    {
      // person, company: declared; alphabetical would be company, person.
      await page.getByLabel('Kind').waitFor();
      expect(await page.getByLabel('Kind').locator('option').allInnerTexts()).toEqual(['—', 'Person', 'Company']);
      await page.goto('/records/lead');
      await page.getByRole('button', { name: 'Filters' }).click();
      await page.getByLabel('Field').selectOption({ label: 'Stage' });
      await page.getByLabel('Condition', { exact: true }).selectOption({ label: 'is' });
      expect(await page.getByLabel('Value').locator('option').allInnerTexts()).toEqual(['Choose…', 'New', 'Qualified', 'Won', 'Lost']);
      await page.getByLabel('Condition', { exact: true }).selectOption({ label: 'is any of' });
      await expectNoSidewaysScroll(page);
      await shot(page, `45-${width}-options-declared-order`, false);
      if (width === 'phone') return;
      const options = page.getByRole('group', { name: 'Stage is any of' });
      expect(await options.getByRole('checkbox').evaluateAll((boxes) => boxes.map((box) => box.parentElement!.textContent))).toEqual(['New', 'Qualified', 'Won', 'Lost']);
      // Ticked in another order, sent and shown in the declared one.
      await options.getByRole('checkbox', { name: 'Lost' }).check();
      await options.getByRole('checkbox', { name: 'New' }).check();
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await poll(async () => new URL(page.url()).searchParams.get('f')).toBe(JSON.stringify([{ field: 'stage', op: 'in', value: ['new', 'lost'] }]));
      await page.getByRole('button', { name: /^Filters/ }).click();
      await page.getByRole('list', { name: 'Active filters' }).getByText('Stage is any of New, Lost').waitFor();
      await page.goto(`/records/lead?f=${encodeURIComponent(JSON.stringify([{ field: 'stage', op: 'in', value: ['won', 'new'] }]))}`);
      await page.getByRole('button', { name: /^Filters/ }).click();
      await page.getByRole('list', { name: 'Active filters' }).getByText('Stage is any of New, Won').waitFor();
    }
  });

  it('exports phone numbers as they are and defuses formulas, also behind spaces and look-alikes', async () => {
    const parties = [
      { name: 'Phone Ltd', phone: '+44 20 7946 0958', email: '-', notes: '-12.50' },
      { name: ' =1+1 Spaced', phone: '+1 (555) 010-9999', email: '@handle', notes: '\u00a0=HYPERLINK("http://x")' },
      { name: '＝1+1 Wide', phone: '-2+3+cmd|calc', email: 'a@b.example', notes: '+SUM(A1)' },
    ];
    for (const party of parties) expect((await server.command(adminToken, 'party.create', { ...party, kind: 'company' })).status).toBe(200);
    const page = await adminPage('laptop', '/records/party?sort=name');
    {
      await page.locator('table.data tbody tr').first().waitFor();
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
      const lines = readFileSync((await download.path())!, 'utf8').slice(1).split('\r\n');
      expect(lines[0]).toBe('ID,Name,Email,Phone,Kind,Tax ID,Notes');
      const line = (name: string) => lines.find((candidate) => candidate.includes(name))!.replace(/^\w+,/, '');
      expect(line('Phone Ltd')).toBe("Phone Ltd,'-,+44 20 7946 0958,company,,-12.50");
      expect(line('Spaced')).toBe(`' =1+1 Spaced,'@handle,+1 (555) 010-9999,company,,"'\u00a0=HYPERLINK(""http://x"")"`);
      expect(line('Wide')).toBe("'＝1+1 Wide,a@b.example,'-2+3+cmd|calc,company,,'+SUM(A1)");
    }
  });

  it.each(['laptop', 'phone'] as const)('imports a CSV naming every column it leaves out, mapped by hand, and refs by title, refusing ambiguous ones (%s)', async (width) => {
    const page = await adminPage(width, '/records/party/import');
    const fieldFor = (column: string) => page.getByRole('combobox', { name: `Field for column ${column}` });
    {
      const parties = ['Name,E-mail,Phone number,Kind,Remarks', `Tenant ${width},tenant@${width}.example,+44 7700 900123,person,quiet`].join('\r\n');
      await page.getByLabel('CSV file').setInputFiles({ name: 'parties.csv', mimeType: 'text/csv', buffer: Buffer.from(parties, 'utf8') });
      expect(await fieldFor('E-mail').inputValue()).toBe('email');
      const note = page.locator('.import-unmatched-note');
      expect(await note.innerText()).toBe('These 2 columns match no field and are not imported: Phone number, Remarks. Choose a field for each under “Import into” to import them.');
      await expectNoSidewaysScroll(page);
      await shot(page, `46-${width}-import-unmatched-columns`);
      await fieldFor('Phone number').selectOption({ label: 'Phone' });
      expect(await note.innerText()).toBe('This column matches no field and is not imported: Remarks. Choose a field for it under “Import into” to import it.');
      await page.getByRole('button', { name: 'Check 1 row' }).click();
      await page.getByRole('button', { name: 'Import 1 row' }).click();
      await page.getByText('1 created').waitFor();
      expect(await search('party', [{ field: 'name', op: 'eq', value: `Tenant ${width}` }])).toMatchObject([{ email: `tenant@${width}.example`, phone: '+44 7700 900123', kind: 'person' }]);
      // Refs by title read the same at a phone's width (the failure table's layout there: usability.test.ts).
      if (width === 'phone') return;

      await page.goto('/records/lead/import');
      const leads = [
        'Title,Party,Expected revenue',
        `By name ${width},Acme GmbH,950.00`,
        `By id ${width},${acmeId},1200`,
        `Ambiguous ${width},Twin Ltd,1`,
        `Unknown ${width},Nobody Ltd,1`,
        `Fraction ${width},Acme GmbH,950.001`,
      ].join('\r\n');
      await page.getByLabel('CSV file').setInputFiles({ name: 'leads.csv', mimeType: 'text/csv', buffer: Buffer.from(leads, 'utf8') });
      await page.getByText('Expects the id of the party it refers to, or its name').waitFor();
      expect(await note.count()).toBe(0);
      await page.getByRole('button', { name: 'Check 5 rows' }).click();
      await page.getByText('2 of 5 rows can be imported; 3 would fail.').waitFor();
      expect(await page.getByRole('table', { name: 'Rows that would fail' }).locator('tbody tr').allInnerTexts()).toEqual([
        expect.stringMatching(/^4\s+Party: “Twin Ltd” is the name of 2 party records; use the id of the one you mean$/),
        expect.stringMatching(/^5\s+Party: no party has the id or name “Nobody Ltd”$/),
        expect.stringMatching(/^6\s+Expected revenue: “950\.001” has more than 2 decimals; nothing is rounded$/),
      ]);
      await expectNoSidewaysScroll(page);
      await shot(page, `47-${width}-import-refs-by-title`);
      await page.getByRole('button', { name: 'Import 2 rows' }).click();
      await page.getByText('2 created · 3 failed').waitFor();
      const stored = await search('lead', [{ field: 'title', op: 'in', value: [`By name ${width}`, `By id ${width}`] }]);
      expect(stored.map((lead) => [lead.title, lead.party, lead.expected_revenue]).sort()).toEqual([
        [`By id ${width}`, acmeId, 120000],
        [`By name ${width}`, acmeId, 95000],
      ]);
    }
  });
});
