/** Types of duckdb-module.mjs for TypeScript tests. */
export const DUCKDB_EH: string;
export function duckdbEh(): WebAssembly.Module;
export function instantiateFrom(db: unknown, module: WebAssembly.Module): void;
