/**
 * A parent that provides the app's services through the context, as <aw-app> does, for tests of elements that take
 * them from there (the suites that share one page import it once).
 */
import { provide } from '@lit/context';
import { html, LitElement } from 'lit';
import { customElement, property } from 'lit/decorators.js';
import type { Services } from '../../src/views/kit/services';
import { servicesContext } from '../../src/views/kit/services';

@customElement('test-services-host')
export class ServicesHost extends LitElement {
  @provide({ context: servicesContext })
  @property({ attribute: false })
  services!: Services;
  override render() {
    return html`<slot></slot>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'test-services-host': ServicesHost;
  }
}

/** A new <test-services-host> (its services still to set). */
export function servicesHost(): ServicesHost {
  return document.createElement('test-services-host');
}
