// The card's one style sheet, adopted by its shadow root as a constructed sheet: no <style> element
// and no style attribute, so `default-src 'self'` allows it. Nothing leaks in or out of the shadow
// root; a host changes the card through these custom properties (inherited into it) and `::part`s.
// Colours meet WCAG 2.2 AA (4.5:1 for text, 3:1 for the focus ring and the buttons' edges) in light and
// dark; targets are at least 44 px high; motion only where the person has not asked for less.
export const cardStyles = `
:host {
  --_fg: var(--buddy-color, #1b1b1f);
  --_bg: var(--buddy-background, #ffffff);
  --_muted: var(--buddy-muted-color, #4a4a55);
  --_accent: var(--buddy-accent, #0b57d0);
  --_on-accent: var(--buddy-on-accent, #ffffff);
  --_border: var(--buddy-border-color, #767680);
  --_focus: var(--buddy-focus-color, #0b57d0);
  display: block;
  max-width: 36rem;
  color: var(--_fg);
  font: var(--buddy-font, 1rem/1.5 system-ui, sans-serif);
}
@media (prefers-color-scheme: dark) {
  :host {
    --_fg: var(--buddy-color, #ececf1);
    --_bg: var(--buddy-background, #1b1b1f);
    --_muted: var(--buddy-muted-color, #c4c4cf);
    --_accent: var(--buddy-accent, #a8c7fa);
    --_on-accent: var(--buddy-on-accent, #0b1d3a);
    --_border: var(--buddy-border-color, #8e8e99);
    --_focus: var(--buddy-focus-color, #a8c7fa);
  }
}
:host([hidden]) { display: none; }
* { box-sizing: border-box; }
[part~="card"] {
  background: var(--_bg);
  border: 1px solid var(--_border);
  border-radius: var(--buddy-radius, 0.75rem);
  padding: var(--buddy-padding, 1.25rem);
  overflow-wrap: anywhere;
}
[part~="title"] { margin: 0 0 0.5rem; font-size: 1.25em; line-height: 1.3; }
[part~="message"] { margin: 0 0 0.5rem; }
[part~="code"] {
  margin: 0.75rem 0;
  font: 700 2em/1.2 var(--buddy-code-font, ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace);
  letter-spacing: 0.08em;
  overflow-wrap: anywhere;
  user-select: all;
}
[part~="row"], [part~="actions"] { display: flex; flex-wrap: wrap; gap: 0.75rem; align-items: center; margin: 0.5rem 0; }
[part~="button"] {
  min-height: 2.75rem;
  padding: 0.5rem 1rem;
  font: inherit;
  color: var(--_fg);
  background: var(--_bg);
  border: 1px solid var(--_border);
  border-radius: var(--buddy-button-radius, 0.5rem);
  cursor: pointer;
}
[part~="primary"] { color: var(--_on-accent); background: var(--_accent); border-color: var(--_accent); }
[part~="link"] { color: var(--_accent); text-underline-offset: 0.2em; min-height: 2.75rem; display: inline-flex; align-items: center; }
[part~="hint"], [part~="waiting"], [part~="note"] { color: var(--_muted); }
[part~="hint"] { font-size: 0.875em; }
[part~="link"] [part~="hint"] { margin-inline-start: 0.35em; }
[part~="note"]:empty { display: none; }
[part~="qr-figure"] { margin: 0.75rem 0; }
[part~="qr"] { display: block; width: 10rem; max-width: 100%; height: auto; }
:focus-visible, [part~="code"]:focus { outline: 3px solid var(--_focus); outline-offset: 2px; }
.busy [part~="status"]::after { content: ""; display: inline-block; width: 0.75em; height: 0.75em; margin-inline-start: 0.5em; border: 2px solid var(--_muted); border-top-color: transparent; border-radius: 50%; }
@media (prefers-reduced-motion: no-preference) {
  .busy [part~="status"]::after { animation: buddy-turn 1s linear infinite; }
  @keyframes buddy-turn { to { transform: rotate(1turn); } }
}
`
