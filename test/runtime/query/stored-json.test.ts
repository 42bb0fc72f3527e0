import { describe, expect, it } from 'vitest';
import { StoredJson, jsonText } from '../../../runtime/query/stored-json.ts';

describe('jsonText', () => {
  it('writes each stored text where its value sits, as it is', () => {
    const files = '[{"id":"01A","name":"a.pdf","size":3,"type":"application/pdf","sha256":"ab"}]';
    // Spaces show that the text is not parsed and written again.
    const one = '{ "id" : "01B" }';
    const value = { value: { id: 'x', attachments: new StoredJson(files), scan: new StoredJson(one), none: null }, rows: [new StoredJson('[1, 2]')], denied: [] };
    expect(jsonText(value)).toBe(`{"value":{"id":"x","attachments":${files},"scan":${one},"none":null},"rows":[[1, 2]],"denied":[]}`);
  });

  it('is JSON.stringify where no stored text is', () => {
    const value = { a: 'quote " and \\ and \u0000', b: [1, { c: null }], d: '\u0000stored-json:' };
    expect(jsonText(value)).toBe(JSON.stringify(value));
  });

  it('leaves a string shaped like its placeholder (without the process\'s random part) alone', () => {
    const value = { text: '\u0000stored-json:AAAAAAAAAAAAAAAAAAAAAA', files: new StoredJson('[]') };
    expect(jsonText(value)).toBe('{"text":"\\u0000stored-json:AAAAAAAAAAAAAAAAAAAAAA","files":[]}');
  });

  it('outside jsonText, a stored value is written as the value it holds', () => {
    expect(JSON.stringify({ files: new StoredJson('[ {"id" : "01A"} ]') })).toBe('{"files":[{"id":"01A"}]}');
  });

  it('after a failed write, stored values are back to their parsed form', () => {
    expect(() => jsonText({ files: new StoredJson('[1]'), n: 1n })).toThrow(TypeError);
    expect(JSON.stringify(new StoredJson('[ 1 ]'))).toBe('[1]');
  });
});
