/** Tools the built-in agent can offer: an OpenAI function definition plus a pure implementation. */
import { calculate, formatNumber } from '../util/calculator';

export interface AgentTool {
  definition: { type: 'function'; function: { name: string; description: string; parameters: Record<string, unknown> } };
  run(args: Record<string, unknown>): string;
}

export const TOOLS: Record<string, AgentTool> = {
  calculator: {
    definition: {
      type: 'function',
      function: {
        name: 'calculator',
        description: 'Evaluate an arithmetic expression with + - * / % ^ and parentheses.',
        parameters: { type: 'object', properties: { expression: { type: 'string', description: 'e.g. "17 * (3 + 4)"' } }, required: ['expression'] },
      },
    },
    run(args) {
      try {
        return formatNumber(calculate(String(args.expression ?? '')));
      } catch (e) {
        return `error: ${e instanceof Error ? e.message : String(e)}`;
      }
    },
  },
};
