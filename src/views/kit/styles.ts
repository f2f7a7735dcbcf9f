import { css } from 'lit';

/** Shared element styles: buttons, inputs, cards, tables. */
export const base = css`
  :host { font: 14px/1.45 var(--aw-font); color: var(--aw-text); }
  button, select, input, textarea { font: inherit; }
  button {
    border: 1px solid var(--aw-border); background: var(--aw-panel); color: var(--aw-text);
    border-radius: var(--aw-radius); padding: 4px 10px; cursor: pointer;
  }
  button:hover:not(:disabled) { border-color: var(--aw-accent); }
  button:disabled { opacity: 0.5; cursor: default; }
  button.primary { background: var(--aw-accent); border-color: var(--aw-accent); color: #fff; }
  button.danger { color: var(--aw-error); }
  input:not([type]), input[type='text'], input[type='url'], input[type='search'], input[type='number'], input[type='password'], select, textarea {
    border: 1px solid var(--aw-border); border-radius: var(--aw-radius); padding: 4px 8px; background: var(--aw-panel); color: var(--aw-text);
  }
  input:focus-visible, select:focus-visible, textarea:focus-visible, button:focus-visible, summary:focus-visible { outline: 2px solid var(--aw-accent); outline-offset: 1px; }
  input[type='checkbox'], input[type='radio'] { accent-color: var(--aw-accent); }
  fieldset { border: 1px solid var(--aw-border); border-radius: var(--aw-radius); margin: 6px 0; padding: 6px 10px 8px; }
  legend { color: var(--aw-muted); font-weight: 600; font-size: 12.5px; padding: 0 4px; }
  .sr-only { position: absolute; width: 1px; height: 1px; padding: 0; margin: -1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; border: 0; }
  .badge { display: inline-block; border-radius: 10px; padding: 0 7px; background: var(--aw-subtle); font-size: 11.5px; }
  .badge.good, .badge.ok { background: var(--aw-ok-bg); }
  .badge.bad, .badge.error { background: var(--aw-error-bg); }
  .card { background: var(--aw-panel); border: 1px solid var(--aw-border); border-radius: var(--aw-radius); padding: 12px 14px; }
  .muted { color: var(--aw-muted); }
  .error { color: var(--aw-error); }
  .mono { font-family: var(--aw-mono); font-size: 12.5px; }
  .row { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; }
  h2 { font-size: 15px; margin: 0 0 8px; }
  h3 { font-size: 13.5px; margin: 0 0 6px; }
  table.grid { border-collapse: collapse; width: 100%; }
  table.grid th, table.grid td { border-bottom: 1px solid var(--aw-border); padding: 3px 8px; text-align: left; vertical-align: top; }
  table.grid th { font-weight: 600; color: var(--aw-muted); font-size: 12.5px; }
`;
