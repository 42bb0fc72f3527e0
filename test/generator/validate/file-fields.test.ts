/**
 * File fields in the module language (generator/validate/read.ts, check-fields.ts): `multiple`,
 * `accept` (known media types, `image/*` families), `max_size` ('20MB'), with required, read,
 * write, personal, agents and in lines; each refusal one line at the module's line, naming the
 * field. And what the IR keeps of them.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { loadProject } from '../../../generator/pipeline.ts';
import { oneModule, removeModuleTrees } from '../../helpers/module-trees.ts';
import { expectRefusal, F, type RefusalCase } from './cases.ts';

afterAll(removeModuleTrees);

const cases: RefusalCase[] = [
  {
    name: 'unknown media types, a wrong case, a family that does not exist, one twice',
    model: `{ fields: {
      one: { kind: 'file', accept: ['application/pdff'] },
      two: { kind: 'file', accept: ['Image/PNG', 'pdf'] },
      three: { kind: 'file', accept: ['images/*', '*/*'] },
      four: { kind: 'file', accept: ['image/*', 'image/png', 'application/pdf', 'application/pdf'] },
      five: { kind: 'file', accept: [] },
    } }`,
    lines: (at) => [
      `${F}:${at('one:')}: model m, field one: accept names unknown media type "application/pdff" (write a registered media type in lower case, such as 'application/pdf', or a family such as 'image/*')`,
      `${F}:${at('two:')}: model m, field two: accept names unknown media type "Image/PNG" (write a registered media type in lower case, such as 'application/pdf', or a family such as 'image/*')`,
      `${F}:${at('two:')}: model m, field two: accept names unknown media type "pdf" (write a registered media type in lower case, such as 'application/pdf', or a family such as 'image/*')`,
      `${F}:${at('three:')}: model m, field three: accept names unknown media type "images/*" (write a registered media type in lower case, such as 'application/pdf', or a family such as 'image/*')`,
      `${F}:${at('three:')}: model m, field three: accept names unknown media type "*/*" (write a registered media type in lower case, such as 'application/pdf', or a family such as 'image/*')`,
      `${F}:${at('four:')}: model m, field four: accept lists "image/png" twice (or within a family it lists) (remove one)`,
      `${F}:${at('four:')}: model m, field four: accept lists "application/pdf" twice (or within a family it lists) (remove one)`,
      `${F}:${at('five:')}: model m, field five: accept lists no media type (remove accept to take any type, or list the types)`,
    ],
  },
  {
    name: 'a max_size that is no size',
    model: `{ fields: {
      one: { kind: 'file', max_size: '20 megabytes' },
      two: { kind: 'file', max_size: '0MB' },
      three: { kind: 'file', max_size: '1.5MB' },
      four: { kind: 'file', max_size: '2048GB' },
      five: { kind: 'file', max_size: 20 },
    } }`,
    lines: (at) => [
      `${F}:${at('one:')}: model m, field one: max_size "20 megabytes" is not a size of 1 B to 1024 GB (write a whole number and a unit, B, KB, MB or GB (1 KB = 1024 B), such as '20MB')`,
      `${F}:${at('two:')}: model m, field two: max_size "0MB" is not a size of 1 B to 1024 GB (write a whole number and a unit, B, KB, MB or GB (1 KB = 1024 B), such as '20MB')`,
      `${F}:${at('three:')}: model m, field three: max_size "1.5MB" is not a size of 1 B to 1024 GB (write a whole number and a unit, B, KB, MB or GB (1 KB = 1024 B), such as '20MB')`,
      `${F}:${at('four:')}: model m, field four: max_size "2048GB" is not a size of 1 B to 1024 GB (write a whole number and a unit, B, KB, MB or GB (1 KB = 1024 B), such as '20MB')`,
      `${F}:${at('five:')}: model m, field five: "max_size" must be a string (got 20)`,
    ],
  },
  {
    name: 'multiple with unique, an index, a default, a computed file',
    model: `{ fields: {
      one: { kind: 'file', multiple: true, unique: true },
      two: { kind: 'file', index: true },
      three: { kind: 'file', default: 'x' },
      four: { kind: 'file', computed: (r) => null },
    } }`,
    lines: (at) => [
      `${F}:${at('one:')}: model m, field one: unique is not for a file field with multiple: a list of files is not one value (remove unique, or remove multiple)`,
      `${F}:${at('two:')}: model m, field two: an index on a file field is refused: records are not looked up by their files (remove index)`,
      `${F}:${at('three:')}: model m, field three: default is not for file fields: no file exists when a module is written (remove default)`,
      `${F}:${at('four:')}: model m, field four: computed is not for file fields: files are uploaded, not worked out (remove computed)`,
    ],
  },
  {
    name: 'a file field in indexes, in a unique index, as the title',
    model: `{ title: 'scan', fields: { name: { kind: 'text' }, scan: { kind: 'file' } },
      indexes: [['name', 'scan']],
      unique: [['name', 'scan']],
    }`,
    lines: (at) => [
      `${F}:${at('title:')}: model m: title "scan" is a file field: a record is named by text (name a text field as the title)`,
      `${F}:${at('indexes:')}: model m, field scan: indexes[0]: an index on a file field is refused: records are not looked up by their files (remove scan)`,
      `${F}:${at('unique:')}: model m: unique[0]: unique is not for file fields (scan) (remove scan)`,
    ],
  },
  {
    name: "file keys on other kinds, each with what it is for",
    model: `{ fields: { name: { kind: 'text', multiple: true, accept: ['application/pdf'], max_size: '1MB' } } }`,
    lines: (at) => [
      `${F}:${at('name:')}: model m, field name: multiple is only for file fields (make it kind: 'file', or remove multiple)`,
      `${F}:${at('name:')}: model m, field name: accept is only for file fields (make it kind: 'file', or remove accept)`,
      `${F}:${at('name:')}: model m, field name: max_size is only for file fields (make it kind: 'file', or remove max_size)`,
    ],
  },
  {
    name: 'a required personal file could not be erased',
    model: `{ fields: { contract: { kind: 'file', required: true, personal: true } } }`,
    lines: (at) => [
      `${F}:${at('contract:')}: model m, field contract: a required personal file field could not be erased (<model>.erase): it cannot be left empty, and every value it takes is a real one (remove required, or say personal: false)`,
    ],
  },
];

describe('file fields: the generator refuses, one line each naming the field', () => {
  it.each(cases)('$name', expectRefusal);
});

describe('file fields: what the IR keeps', () => {
  it('multiple, accept and max_size in bytes, with required, read, write, personal, agents and in lines', async () => {
    const dir = oneModule(`export default {
  models: {
    m: {
      fields: {
        name: { kind: 'text', required: true },
        attachments: { kind: 'file', multiple: true, accept: ['application/pdf', 'image/*'], max_size: '20MB', label: 'Attachments' },
        signed_contract: { kind: 'file', accept: ['application/pdf'], personal: true, read: ['clerk'], write: ['clerk'] },
        scan: { kind: 'file', required: true, agents: 'hidden', unique: true, max_size: '512 kb' },
      },
      lines: { pages: { fields: { page: { kind: 'file', accept: ['image/png'] } } } },
    },
  },
  roles: { clerk: { m: '*' } },
};
`);
    const model = (await loadProject(`${dir}/modules`)).modules[0]!.models[0]!;
    const byName = new Map(model.fields.map((field) => [field.name, field]));
    expect(byName.get('attachments')).toMatchObject({ kind: 'file', multiple: true, accept: ['application/pdf', 'image/*'], maxSize: 20 * 1024 * 1024, label: 'Attachments', personal: false });
    expect(byName.get('signed_contract')).toMatchObject({ kind: 'file', multiple: false, accept: ['application/pdf'], maxSize: undefined, personal: true, maskLabel: 'SIGNED_CONTRACT', readRoles: ['clerk'], writeRoles: ['clerk'] });
    expect(byName.get('scan')).toMatchObject({ kind: 'file', required: true, hiddenFromAgents: true, unique: true, maxSize: 512 * 1024, accept: [] });
    expect(model.lines[0]!.fields[0]).toMatchObject({ kind: 'file', multiple: false, accept: ['image/png'] });
  });
});
