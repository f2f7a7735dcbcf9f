/** What the app, `window.workbench` and agents use: the gateway's base URL. */
import { gatewayBase } from './register';

/** OpenAI-style base URL for agents (`…/gateway/v1`); Anthropic clients take it without `/v1`. */
export function gatewayBaseUrl(): string {
  return `${gatewayBase()}gateway/v1`;
}
