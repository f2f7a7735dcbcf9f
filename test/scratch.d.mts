/** Types of test/scratch.mjs for TypeScript tests. */
export function scratchDir(prefix: string, parent?: string): string;
