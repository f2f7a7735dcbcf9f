/** Markdown source whose raw HTML reads as text (kept apart from the renderer: no DOM needed). */
const escapeLt = (s: string) => s.replaceAll('<', '&lt;');

/** Inline code spans (`…`, ``…``) kept as they are, `<` elsewhere in the line written as `&lt;`. */
function escapeLine(line: string): string {
  let out = '';
  let i = 0;
  while (i < line.length) {
    const tick = line.indexOf('`', i);
    if (tick < 0) break;
    let run = 1;
    while (line[tick + run] === '`') run++;
    const fence = '`'.repeat(run);
    let close = line.indexOf(fence, tick + run);
    while (close >= 0 && line[close + run] === '`') close = line.indexOf(fence, close + run + 1);
    if (close < 0) break;
    out += escapeLt(line.slice(i, tick)) + line.slice(tick, close + run);
    i = close + run;
  }
  return out + escapeLt(line.slice(i));
}

/**
 * Markdown source with raw HTML turned into text: `<` outside code (fenced blocks, indented blocks, inline
 * spans) becomes the entity `&lt;`, which Markdown shows as `<`. Code keeps its text as written.
 */
export function htmlAsText(src: string): string {
  const lines = src.split('\n');
  let fence: string | null = null;
  let prevBlank = true;
  let inIndented = false;
  return lines
    .map((line) => {
      const open = /^ {0,3}(`{3,}|~{3,})/.exec(line);
      if (fence) {
        if (open && open[1][0] === fence[0] && open[1].length >= fence.length && !line.slice(open[0].length).trim()) fence = null;
        prevBlank = false;
        return line;
      }
      if (open) {
        fence = open[1];
        prevBlank = false;
        return line;
      }
      const blank = !line.trim();
      inIndented = /^( {4}|\t)/.test(line) && (prevBlank || inIndented) && !blank ? true : blank ? inIndented : false;
      prevBlank = blank;
      return inIndented && !blank ? line : escapeLine(line);
    })
    .join('\n');
}

