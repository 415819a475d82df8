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
    if (done) return;
    done = true;
    run();
  };
  const visible = typeof document !== 'undefined' && document.visibilityState === 'visible';
  if (visible && typeof requestAnimationFrame === 'function' && typeof MessageChannel === 'function') {
    requestAnimationFrame(() => {
      // A message is a task of its own, not clamped like a nested timer.
      const { port1, port2 } = new MessageChannel();
      port1.onmessage = () => {
        port1.close();
        once();
      };
      port2.postMessage(null);
    });
  }
  setTimeout(once, visible ? FIRST_FRAME_FALLBACK_MILLIS : 0);
}
