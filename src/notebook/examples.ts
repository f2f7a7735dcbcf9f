/** Example notebooks under notebooks/ (served next to the page), shown on the start screen. */
export const EXAMPLE_NOTEBOOKS: { file: string; title: string }[] = [
  { file: 'tour.md', title: 'A tour of the pool' },
  { file: 'sft-curation.md', title: 'Curate SFT data' },
  { file: 'rl-rewards.md', title: 'Reward analysis for RL' },
  { file: 'tool-calls.md', title: 'Tool-call analysis' },
];

export async function fetchExample(file: string, base: string | URL = document.baseURI): Promise<string> {
  const res = await fetch(new URL(`notebooks/${file}`, base));
  if (!res.ok) throw new Error(`Could not load the example notebook ${file} (HTTP ${res.status}). Is notebooks/ deployed next to the page?`);
  return res.text();
}
