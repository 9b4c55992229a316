/** Text made safe for HTML (and XML) content and attributes. */
export function escapeHtml(text: string): string {
  return text.replace(/[<>&"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
