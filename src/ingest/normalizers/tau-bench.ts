import { chatToSteps } from '../chat-steps';
import { defineNormalizer, RecordError } from '../normalizer';
import type { StepDraft } from '../../contract/step';
import { isObject, num, type Obj, str } from '../../contract/json';
import { openaiMessage } from '../../contract/message';
import { safeMetaValue } from './loose-chat';

function isResult(v: unknown): v is Obj {
  return isObject(v) && 'task_id' in v && Array.isArray(v.traj) && ('reward' in v || isObject(v.info));
}

function errorOf(info: Obj): string {
  const e = info.error ?? info.traceback ?? info.exception;
  return str(e) ?? 'run failed before any model call (empty traj)';
}

/** tau-bench / tau2 result files: one trajectory per result, reward on the last step, trials of a task share a prompt group. */
export const tauBench = defineNormalizer({
  id: 'tau-bench',
  parallel: true,
  label: 'tau-bench results',
  detect(sample) {
    const items = sample.length === 1 && Array.isArray(sample[0]) ? sample[0] : sample;
    const hits = items.filter(isResult).length;
    return hits ? 0.8 + 0.15 * (hits / items.length) : 0;
  },
  normalize(record) {
    const v = record.value;
    const results = Array.isArray(v) ? v.filter(isResult) : isResult(v) ? [v] : [];
    if (!results.length) throw new RecordError('not a tau-bench result: expected {task_id, reward, traj: [...], info}');
    return results.map((r) => {
      const info = isObject(r.info) ? r.info : {};
      const task = isObject(info.task) ? info.task : {};
      const reward = num(r.reward ?? (isObject(info.reward_info) ? info.reward_info.reward : undefined));
      const messages = (r.traj as unknown[]).map(openaiMessage);
      const env = str(info.env ?? r.env ?? task.env);
      const metadata: Record<string, string> = {};
      for (const [k, val] of [['task_id', r.task_id], ['trial', r.trial], ['env', env], ['user_id', task.user_id], ['instruction', task.instruction], ['reward_info', info.reward_info], ['user_cost', info.user_cost]] as const) {
        const s = safeMetaValue(val);
        if (s !== null) metadata[k] = s;
      }
      let steps: StepDraft[];
      if (!messages.length) {
        steps = [{ messages: [], response: null, status: 'error', error: errorOf(info), finish_reason: 'error' }];
      } else {
        steps = chatToSteps(messages).map((s) => ({ ...s, finish_reason: s.response?.tool_calls?.length ? 'tool_calls' : s.response ? 'stop' : null }));
      }
      steps[steps.length - 1].reward = reward;
      return {
        prompt_uid: `tau:${env ? `${env}:` : ''}${str(r.task_id)}`,
        common: { channel: 'train', data_source: env ? `tau-bench/${env}` : 'tau-bench', metadata },
        steps,
      };
    });
  },
});
