/** A trivial SharedWorker: answers every message with the same data (the raw postMessage baseline). */
const scope = globalThis as unknown as { addEventListener(type: 'connect', listener: (event: MessageEvent) => void): void };
scope.addEventListener('connect', (event) => {
  const port = event.ports[0];
  if (!port) return;
  port.onmessage = (message) => port.postMessage(message.data);
  port.start();
});
export {};
