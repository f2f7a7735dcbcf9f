import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { detectFormat } from '../../src/ingest/detect';
import { sample } from './format-helpers';

/** Each fixture must win detection for its format against the whole registry (content only, never the name). */
const EXPECTED: Record<string, string> = {
  'devtools-export.har': 'har',
  'http-recording.jsonl': 'har',
  'otlp-genai.json': 'otel',
  'otlp-genai-batches.jsonl': 'otel',
  'langfuse-trace.json': 'langfuse',
  'langfuse-observations.jsonl': 'langfuse',
  'phoenix-spans.jsonl': 'phoenix',
  'phoenix-nested.json': 'phoenix',
  'atif-trajectory.json': 'atif',
  'swe-agent.traj': 'swe-agent',
  'mini-swe-agent.traj.json': 'swe-agent',
  'mini-swe-agent-messages.json': 'swe-agent',
  'openhands-events.json': 'openhands',
  'openhands-eval-output.jsonl': 'openhands',
  'tau-bench-results.json': 'tau-bench',
  'episode-conversations.jsonl': 'conversations',
  'claude-code-session.jsonl': 'claude-code',
  'codex-rollout.jsonl': 'codex',
  'openai-batch-output.jsonl': 'openai-batch',
  'openai-batch-input.jsonl': 'openai-batch',
  'llamafactory-alpaca-history.json': 'llama-factory',
  'llamafactory-dpo-sharegpt.json': 'llama-factory',
  'llamafactory-kto.json': 'llama-factory',
  'trl-preference.jsonl': 'llama-factory',
  'inspect-eval-log.json': 'inspect',
  'langfuse-blob-observations.jsonl': 'langfuse-blob',
};

describe('format detection across the registry', () => {
  for (const [file, id] of Object.entries(EXPECTED)) {
    it(`${file} → ${id}`, () => {
      const d = detectFormat(sample(file));
      assert.equal(d.normalizer.id, id, `scores: ${JSON.stringify(d.scores)}`);
    });
  }
});
