// Text as HTML: the one escape every page uses for every value.
const HTML_ESCAPES: Record<string, string> = { '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&#39;' }

export function escapeHtml (text: string): string {
  return text.replace(/[<>&"']/g, c => HTML_ESCAPES[c] as string)
}
