/**
 * A badge in a web page that the page's own scripts cannot read. A content script shares the page's
 * DOM: every element, text and attribute it adds is the page's to read (`innerText`, `outerHTML`,
 * a `MutationObserver`, `querySelector('[data-user-id]')`…). So:
 *
 * - the host element has no attribute, id or class, and holds nothing but a closed shadow root: to
 *   the page its `shadowRoot` is null, and `textContent`, `innerText`, `outerHTML`, `getHTML()`,
 *   selections and ranges all skip what is inside;
 * - the text is drawn on a canvas there, not written as text: `window.find('Ada')` still searches
 *   closed shadow roots, and would confirm a name the page guessed. The canvas has a fixed size (a
 *   long name is cut short), so nothing about the name's length shows either, and it takes no clicks
 *   (`pointer-events: none`), so the page cannot probe where it is. Its label, for screen readers,
 *   stays inside the closed root.
 *
 * What the page still sees: that an extra, empty `<div>` was added to its document (so that some
 * extension is there), never who is signed in.
 */

const WIDTH = 240;
const HEIGHT = 24;
const PADDING = 8;

export interface PageBadge {
  /** Shows a line of text (drawn, and the canvas's label). */
  show(text: string): void;
  /** What it shows, for the demo's tests: the text, and whether it is in the page. */
  shown(): { text: string | null; inPage: boolean };
}

/** The text cut to `width` pixels, with an ellipsis when it was longer. */
function fit(context: CanvasRenderingContext2D, text: string, width: number): string {
  if (context.measureText(text).width <= width) return text;
  let end = text.length;
  while (end > 0 && context.measureText(`${text.slice(0, end)}…`).width > width) end -= 1;
  return `${text.slice(0, end)}…`;
}

export function createPageBadge(): PageBadge {
  const host = document.createElement('div');
  const root = host.attachShadow({ mode: 'closed' });
  const canvas = document.createElement('canvas');
  const scale = window.devicePixelRatio || 1;
  canvas.width = Math.round(WIDTH * scale);
  canvas.height = Math.round(HEIGHT * scale);
  // Styles through the CSSOM, which no page's Content-Security-Policy blocks (a <style> element it may).
  canvas.style.cssText = `position:fixed;bottom:8px;left:8px;z-index:2147483647;width:${WIDTH}px;height:${HEIGHT}px;border-radius:6px;opacity:.85;pointer-events:none`;
  canvas.setAttribute('role', 'img');
  root.append(canvas);
  let text: string | null = null;
  return {
    show(line) {
      text = line;
      const context = canvas.getContext('2d');
      if (context !== null) {
        context.setTransform(scale, 0, 0, scale, 0, 0);
        context.fillStyle = '#111827';
        context.fillRect(0, 0, WIDTH, HEIGHT);
        context.fillStyle = '#ffffff';
        context.font = '12px system-ui, sans-serif';
        context.textBaseline = 'middle';
        context.fillText(fit(context, line, WIDTH - 2 * PADDING), PADDING, HEIGHT / 2);
      }
      canvas.setAttribute('aria-label', line);
      if (!host.isConnected) document.documentElement.append(host);
    },
    shown: () => ({ text, inPage: host.isConnected }),
  };
}
