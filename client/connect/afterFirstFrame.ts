/**
 * How long a page that shows nothing may hold the connection back: a hidden tab paints no frames,
 * and a page can be hidden between asking and its frame.
 */
export const FIRST_FRAME_FALLBACK_MILLIS = 100;

/**
 * Runs `run` once the page has painted its next frame: in a task posted from the frame's
 * `requestAnimationFrame` callback, which the browser runs just before painting, so the task comes
 * after the paint. Where no frame comes (a hidden tab, no DOM), a timer runs it instead.
 */
export function afterFirstFrame(run: () => void): void {
  let done = false;
  const once = () => {
    if (!done) {
      done = true;
      run();
    }
  };
  const visible = typeof document !== 'undefined' && document.visibilityState === 'visible';
  if (visible && typeof requestAnimationFrame === 'function') requestAnimationFrame(() => setTimeout(once, 0));
  setTimeout(once, visible ? FIRST_FRAME_FALLBACK_MILLIS : 0);
}
