/**
 * The inspector's views, in tab order. A view is one entry here and one case in the inspector's
 * renderView(); `compact` inspectors (the two sides of a compare) show the conversation only.
 */
export const INSPECTOR_VIEWS = [
  { id: 'conversation', label: 'Conversation' },
  { id: 'timeline', label: 'Timeline' },
  { id: 'compare', label: 'Compare rollouts' },
] as const;

export type InspectorView = (typeof INSPECTOR_VIEWS)[number]['id'];
