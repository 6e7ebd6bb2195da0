/**
 * Views: template lookup and rendering (interim minimal version; the complete
 * implementation with engine loading and caching replaces this file).
 */
export class View {
  name: string;
  path: string | undefined;
  root: string | string[];
  constructor(name: string, options: { root: string | string[] }) {
    this.name = name;
    this.root = options.root;
    this.path = undefined;
  }
}

export function renderView(
  _app: unknown,
  name: string,
  _options: object,
  callback: (err: Error | null, html?: string) => void,
): void {
  callback(new Error('Failed to lookup view "' + name + '"'));
}
