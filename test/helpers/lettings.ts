/**
 * A service that is not the demo, as a new user would write one from the README: properties,
 * their units, tenants and leases. Built by the real `rmsgen build` into a temp folder, its
 * registry then served by `startTestServer`. Tests about what must come from a service's own
 * models (descriptions, examples, seeded values) run against it, so that nothing of the demo's
 * (a lead, sales text) can pass for right.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Registry } from '../../runtime/registry.ts';
import { moduleTree, rmsgen } from './module-trees.ts';

export { removeModuleTrees } from './module-trees.ts';

/** Options and states deliberately not in alphabetical order. */
export const LETTINGS_MODULE = `import { defineModule } from '../../generator/define.ts';

export default defineModule({
  label: 'Lettings',
  description: 'Properties, their units, the tenants and their leases.',
  currency: 'EUR',
  models: {
    property: {
      title: 'name',
      fields: {
        name: { kind: 'text', required: true },
        address: { kind: 'text' },
        kind: { kind: 'select', options: ['house', 'apartment', 'commercial'] },
      },
    },
    unit: {
      title: 'code',
      fields: {
        code: { kind: 'text', required: true, unique: true },
        property: { kind: 'ref', to: 'property', required: true },
        rooms: { kind: 'number' },
        status: { kind: 'select', options: ['vacant', 'occupied', 'maintenance'] },
      },
    },
    tenant: {
      title: 'full_name',
      fields: {
        full_name: { kind: 'text', required: true, personal: true },
        email: { kind: 'text', personal: true },
        phone: { kind: 'text', personal: true },
      },
    },
    lease: {
      title: 'reference',
      fields: {
        reference: { kind: 'text', required: true },
        unit: { kind: 'ref', to: 'unit', required: true },
        tenant: { kind: 'ref', to: 'tenant', required: true },
        rent: { kind: 'money', required: true },
        deposit: { kind: 'money' },
        starts_on: { kind: 'date' },
        ends_on: { kind: 'date' },
        state: { kind: 'select', options: ['draft', 'active', 'ended'], governed: true },
        end_reason: { kind: 'text' },
        notes: { kind: 'longtext' },
      },
      actions: {
        activate: { description: 'Start the lease', from: 'draft', to: 'active' },
        end: { description: 'End the lease', from: 'active', to: 'ended', required: ['end_reason'] },
      },
    },
  },
  roles: { manager: { property: '*', unit: '*', tenant: '*', lease: '*' } },
});
`;

/** Builds the lettings module with the real CLI into a temp folder and loads its registry. */
export async function buildLettings(): Promise<Registry> {
  const dir = moduleTree({ lettings: LETTINGS_MODULE });
  const build = await rmsgen(['build', '--modules', 'modules', '--out', 'generated'], dir);
  if (build.status !== 0) throw new Error(`rmsgen build of the lettings module failed:\n${build.stderr}`);
  return ((await import(pathToFileURL(join(dir, 'generated/registry.ts')).href)) as { registry: Registry }).registry;
}
