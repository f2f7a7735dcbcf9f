/** postMessage protocol between the black-box host (page) and the agent sandbox (opaque-origin iframe). */
export type HostToSandbox =
  | { type: 'aw-sandbox:run'; code: string; baseUrl: string; input: unknown }
  | { type: 'aw-sandbox:head'; id: number; status: number; statusText: string; headers: [string, string][] }
  | { type: 'aw-sandbox:chunk'; id: number; bytes: ArrayBuffer }
  | { type: 'aw-sandbox:end'; id: number }
  | { type: 'aw-sandbox:fail'; id: number; message: string };

export type SandboxToHost =
  | { type: 'aw-sandbox:ready' }
  | { type: 'aw-sandbox:fetch'; id: number; url: string; method: string; headers: [string, string][]; body: string | null }
  | { type: 'aw-sandbox:abort'; id: number }
  | { type: 'aw-sandbox:log'; level: string; text: string }
  | { type: 'aw-sandbox:done'; result: unknown }
  | { type: 'aw-sandbox:error'; message: string };
