/**
 * The backend queues e-mail and sends it from a step that a cron job calls (`pnpm dev` runs one
 * beside `next dev`; the shared start script does not): the lanes call that step, one at a time,
 * every second while their tests run, with the development default cron secret of the backend's
 * `.env.development`.
 */
export function pumpEmailQueue(baseUrl: string): { stop(): Promise<void> } {
  let running = true;
  const loop = (async () => {
    while (running) {
      try {
        await fetch(`${baseUrl}/api/latest/internal/email-queue-step?only_one_step=true`, {
          headers: {
            authorization: `Bearer ${process.env.STACK_CRON_SECRET ?? 'mock_cron_secret'}`,
            'x-stack-disable-artificial-development-delay': 'yes',
          },
          signal: AbortSignal.timeout(600_000),
        });
      } catch {
        // A step that failed is tried again with the next one.
      }
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
    },
  };
}
