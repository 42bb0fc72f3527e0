/** Shared by the web app's pure tests (test/web/lib/): a field as `GET /api/meta` describes it. */
import { optionLabel } from '../../web/src/lib/format.ts';
import type { FieldInfo } from '../../web/src/lib/types.ts';

export const field = (name: string, kind: FieldInfo['kind'], extra: Partial<FieldInfo> = {}): FieldInfo => ({
  name,
  kind,
  label: optionLabel(name),
  description: '',
  required: false,
  personal: false,
  masked: false,
  governed: false,
  computed: false,
  writable: true,
  ...extra,
});
