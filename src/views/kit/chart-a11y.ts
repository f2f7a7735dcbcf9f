/**
 * Observable Plot labels every mark's `<g>` ("bar", "rule", "tip"): on a `<g>` without a role that is an ARIA
 * error (axe: aria-prohibited-attr), and a screen reader would read the names of marks, not the data. A chart is
 * one image named by its caption: the `<svg>` gets role="img" (children presentational) and the marks are hidden
 * from assistive technology (their aria-label stays: the layout test finds the tick labels by it).
 */
export function accessibleChart<T extends Element>(chart: T, label?: string): T {
  const svgs = chart instanceof SVGSVGElement ? [chart] : [...chart.querySelectorAll('svg')];
  for (const svg of svgs) {
    svg.setAttribute('role', 'img');
    if (label && !svg.hasAttribute('aria-label')) svg.setAttribute('aria-label', label);
  }
  for (const g of chart.querySelectorAll('g[aria-label], g[aria-description]')) g.setAttribute('aria-hidden', 'true');
  return chart;
}
