/**
 * What a plan shows of the files its command would attach: an agent's input holds file ids; a
 * plan shows each as the file (`{"id", "name", "size", "type", "sha256"}`) where the plan's agent
 * uploaded it or the viewer may read it, so that whoever decides sees what would be attached. The
 * content stays out of reach until a record holds the file (files/access.ts).
 */
import type { PlanInfo } from '../api-shapes.ts';
import type { Caller } from '../caller.ts';
import type { RecordService } from '../commands/types.ts';
import { readableHolder } from './access.ts';
import { fileRef, findFiles } from './store.ts';

export async function withPlanFiles(service: RecordService, caller: Caller, plans: readonly PlanInfo[]): Promise<PlanInfo[]> {
  const out: PlanInfo[] = [];
  for (const plan of plans) {
    const command = service.commands.get(plan.command);
    const input = plan.input as Record<string, unknown> | null;
    const fields = command && input ? command.model.meta.fields.filter((field) => field.kind === 'file' && field.name in input) : [];
    if (fields.length === 0 || !input) {
      out.push(plan);
      continue;
    }
    const idsOf = (value: unknown): string[] => (typeof value === 'string' ? [value] : Array.isArray(value) ? value.filter((id): id is string => typeof id === 'string') : []);
    const files = await findFiles(service.db, fields.flatMap((field) => idsOf(input[field.name])));
    const shown = async (id: string) => {
      const file = files.get(id);
      if (!file) return id;
      const mayShow = file.uploadedBy === `agent:${plan.agent.id}` || (await readableHolder(service, caller, id)) !== undefined;
      return mayShow ? fileRef(file) : id;
    };
    const copy = { ...input };
    for (const field of fields) {
      const value = input[field.name];
      if (typeof value === 'string') copy[field.name] = await shown(value);
      else if (Array.isArray(value)) copy[field.name] = await Promise.all(idsOf(value).map(shown));
    }
    out.push({ ...plan, input: copy });
  }
  return out;
}
