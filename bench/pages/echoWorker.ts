/**
 * A trivial SharedWorker for the raw postMessage baselines: answers every message on a port with
 * the same data, or, once the port was sent `{ answerWith: value }`, with that value (so a baseline
 * can carry what a real call carries: the query out, the user back).
 */
const scope = globalThis as unknown as {
  addEventListener(type: 'connect', listener: (event: MessageEvent) => void): void;
};
scope.addEventListener('connect', (event) => {
  const port = event.ports[0];
  if (!port) return;
  let answer: { value: unknown } | null = null;
  port.onmessage = (message) => {
    const data = message.data as { answerWith?: unknown } | null;
    if (typeof data === 'object' && data !== null && 'answerWith' in data) {
      answer = { value: data.answerWith };
      port.postMessage('ready');
      return;
    }
    port.postMessage(answer === null ? message.data : answer.value);
  };
  port.start();
});
export {};
