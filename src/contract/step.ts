/** The step record: one row of table `steps` (docs/schema.md). */

export interface ToolCall {
  id: string | null;
  type: string;
  function: { name: string; arguments: string };
}

/** OpenAI-style chat message, the shape of every element of `steps.messages` and of `steps.response`. */
export interface ChatMessage {
  role: string;
  content: string | null;
  reasoning?: string | null;
  name?: string | null;
  tool_call_id?: string | null;
  tool_calls?: ToolCall[] | null;
  /** Original multi-part content as JSON text, when content was a list of parts. */
  parts?: string | null;
  /** A tool result the source marks as failed (Anthropic `is_error`, an error output): its text stays as written. */
  is_error?: boolean | null;
}

export const Status = { ok: 'ok', error: 'error' } as const;
export type Status = (typeof Status)[keyof typeof Status];

export interface StepRecord {
  step_id: string;
  trajectory_uid: string;
  prompt_uid: string;
  step_index: number;
  /** null = derive at commit (last step_index of the trajectory within the import). */
  is_last: boolean | null;
  channel: string;
  policy_version: number | null;
  agent: string | null;
  data_source: string | null;
  model: string | null;
  provider: string | null;
  messages: ChatMessage[];
  /** Tool definitions as JSON text. */
  tools: string | null;
  response: ChatMessage | null;
  response_text: string | null;
  finish_reason: string | null;
  prompt_tokens: number | null;
  completion_tokens: number | null;
  prompt_ids: number[] | null;
  response_ids: number[] | null;
  rollout_log_probs: number[] | null;
  reward: number | null;
  /** Epoch milliseconds. */
  started_at: number | null;
  ended_at: number | null;
  latency_ms: number | null;
  ttft_ms: number | null;
  status: Status;
  error: string | null;
  metadata: Record<string, string> | null;
  raw: string | null;
  source: string;
  source_format: string;
  source_line: number | null;
  source_id: string;
  import_id: number | null;
  /**
   * The trajectory id the source itself gave, when it gave one. trajectory_uid is the same unless that id
   * was already in the pool with other content (then `{id}@{source_id[:12]}`, docs/decisions/011).
   */
  source_trajectory_id?: string | null;
}

/**
 * What a normalizer emits for one LLM call. Identity fields are optional: the
 * framework (finalize.ts) fills them by the data contract.
 */
export type StepDraft = Partial<Omit<StepRecord, 'messages'>> & {
  messages: ChatMessage[];
};

/** A trajectory as a normalizer sees it: ordered steps plus what they share. */
export interface TrajectoryDraft {
  /** The source's own trajectory / session / trace id, if any. */
  trajectory_uid?: string | null;
  /** The source's group id (veRL uid / index, Claw-R1 prompt_uid), if any. */
  prompt_uid?: string | null;
  /** Fields copied onto every step unless the step sets them. */
  common?: Partial<Omit<StepRecord, 'messages'>>;
  steps: StepDraft[];
  /**
   * Request-log formats set this: each record is one call carrying the whole history,
   * and the linker joins records whose history extends an earlier call into one trajectory.
   */
  link?: boolean;
}
