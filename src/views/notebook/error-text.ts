/**
 * DuckDB repeats the failing line of SQL under its message ("LINE 1: SELECT nope FROM steps" and a caret line). The
 * cell's editor marks that line already, so the message says it once: the echo goes, "(line N, marked above)" stays.
 */
export function errorWithoutEcho(message: string, line: number | null): string {
  if (line === null) return message;
  const out = message
    .split('\n')
    .filter((l) => !/^LINE \d+:/.test(l) && !/^\s*\^\s*$/.test(l))
    .join('\n')
    .trim();
  return out === message.trim() ? message : `${out}\n(line ${line}, marked above)`;
}
