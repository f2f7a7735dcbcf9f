/// <reference lib="webworker" />
/** Tokenizer worker: hosts the tokenizer's calls (src/tokenizer/worker-calls.ts; its protocol is src/tokenizer/api.ts). */
import * as Comlink from 'comlink';
import { createTokenizerWorkerApi } from '../src/tokenizer/worker-calls';

Comlink.expose(createTokenizerWorkerApi());
