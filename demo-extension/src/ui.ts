/** The little DOM helpers the popup and the options page share. */
export const byId = <T extends HTMLElement = HTMLElement>(id: string): T => document.getElementById(id) as T;

export function showError(error: unknown): void {
  byId('error').textContent = error instanceof Error ? error.message : String(error);
}

export function clearError(): void {
  byId('error').textContent = '';
}
