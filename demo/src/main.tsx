import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { AuthProvider } from '../../client/react/index.js';
import { App } from './App.js';
import { createDemoClient, type DemoConfig } from './client.js';

async function boot() {
  const config = (await (await fetch('/demo-config.json', { cache: 'no-store' })).json()) as DemoConfig;
  const client = createDemoClient(config);
  // For the end-to-end tests, which call the broker from the page (Playwright cannot see SharedWorkers).
  (window as unknown as { __authbroker: typeof client }).__authbroker = client;
  createRoot(document.getElementById('root')!).render(
    <StrictMode>
      <AuthProvider client={client}>
        <App />
      </AuthProvider>
    </StrictMode>,
  );
}

void boot();
