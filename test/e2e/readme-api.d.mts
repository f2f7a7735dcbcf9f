/** A member of `window.workbench` as README.md documents it (readme-api.mjs). */
export interface DocumentedMember {
  name: string;
  sync: boolean;
  property: boolean;
  testBuild: boolean;
}
export function documentedApi(readme?: string): DocumentedMember[];
