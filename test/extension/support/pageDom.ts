import type { Page } from 'puppeteer-core';

/**
 * What a web page's own scripts can learn from their DOM about words a content script may show:
 * everything they can read as text (markup, `innerText`, `textContent`, every attribute of every
 * element, open shadow roots and serializable ones, a selection of the whole document), and
 * whether `window.find` finds each word (it searches closed shadow roots too, so it confirms a
 * guess). Run in the page's main world, as the page's scripts would.
 */
export async function pageDomReading(page: Page, words: string[]): Promise<{ text: string; found: string[] }> {
  return page.evaluate((guesses: string[]) => {
    const parts: string[] = [
      document.documentElement.outerHTML,
      document.documentElement.innerText,
      document.documentElement.textContent ?? '',
    ];
    const visit = (root: Document | ShadowRoot) => {
      for (const element of Array.from(root.querySelectorAll('*'))) {
        for (const attribute of Array.from(element.attributes)) parts.push(`${attribute.name}=${attribute.value}`);
        const shadow = element.shadowRoot;
        if (shadow !== null) {
          parts.push(shadow.innerHTML);
          visit(shadow);
        }
        const withHtml = element as Element & { getHTML?(options: { serializableShadowRoots: boolean }): string };
        if (typeof withHtml.getHTML === 'function') parts.push(withHtml.getHTML({ serializableShadowRoots: true }));
      }
    };
    visit(document);
    const selection = getSelection();
    selection?.selectAllChildren(document.documentElement);
    parts.push(selection?.toString() ?? '');
    selection?.removeAllRanges();
    const found = guesses.filter((word) => {
      getSelection()?.removeAllRanges();
      return (window as Window & { find?(text: string): boolean }).find?.(word) === true;
    });
    return { text: parts.join('\n'), found };
  }, words);
}
