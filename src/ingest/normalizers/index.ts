/**
 * The normalizer registry: one module per source format. Order matters only for ties in detection
 * (earlier wins); `generic` is the fallback and is not listed here.
 */
import type { Normalizer } from '../normalizer';
import { atif } from './atif';
import { conversations } from './conversations';
import { har } from './har';
import { langfuse } from './langfuse';
import { openaiChat } from './openai-chat';
import { openhands } from './openhands';
import { otel } from './otel';
import { phoenix } from './phoenix';
import { sweAgent } from './swe-agent';
import { tauBench } from './tau-bench';
import { openaiLog } from './openai-log';
import { anthropic } from './anthropic';
import { sharegpt } from './sharegpt';
import { verl } from './verl';
import { stepRecord } from './step-record';
import { openaiResponses } from './openai-responses';
import { harbor } from './harbor';
import { vcr } from './vcr';
import { claudeCode } from './claude-code';
import { codex } from './codex';
import { openaiBatch } from './openai-batch';
import { llamaFactory } from './llama-factory';
import { inspect } from './inspect';
import { langfuseBlob } from './langfuse-blob';
import { tau2Bench } from './tau2-bench';
import { piSession, sessionTrace } from './pi-session';
import { geminiCli } from './gemini-cli';
import { cline } from './cline';
import { opencode } from './opencode';
import { aider } from './aider';

export const NORMALIZERS: Normalizer<unknown>[] = [openaiChat as Normalizer<unknown>, har as Normalizer<unknown>, otel as Normalizer<unknown>, langfuse as Normalizer<unknown>, phoenix as Normalizer<unknown>, atif as Normalizer<unknown>, sweAgent as Normalizer<unknown>, tauBench as Normalizer<unknown>, conversations as Normalizer<unknown>, openhands as Normalizer<unknown>, openaiLog as Normalizer<unknown>, anthropic as Normalizer<unknown>, sharegpt as Normalizer<unknown>, verl as Normalizer<unknown>, stepRecord as Normalizer<unknown>, openaiResponses as Normalizer<unknown>,
  harbor as Normalizer<unknown>, vcr as Normalizer<unknown>,
  claudeCode as Normalizer<unknown>, codex as Normalizer<unknown>, openaiBatch as Normalizer<unknown>, llamaFactory as Normalizer<unknown>, inspect as Normalizer<unknown>, langfuseBlob as Normalizer<unknown>,
  tau2Bench as Normalizer<unknown>, piSession as Normalizer<unknown>, sessionTrace as Normalizer<unknown>, geminiCli as Normalizer<unknown>, cline as Normalizer<unknown>, opencode as Normalizer<unknown>, aider as Normalizer<unknown>];


