import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { AuthProvider } from '../../client/react/index.js';
import { App } from './App.js';
import { createDemoClient, type DemoConfig } from './client.js';
import { setDemoConfig } from './lib/config.js';
import './styles/base.css';
import './styles/controls.css';
import './styles/components.css';
import './styles/widgets.css';
import './styles/layout.css';
import './styles/panel.css';

async function boot() {
  const root = createRoot(document.getElementById('root')!);
  let config: DemoConfig;
  try {
    config = (await (await fetch('/demo-config.json', { cache: 'no-store' })).json()) as DemoConfig;
  } catch {
    document.getElementById('root')!.textContent =
      'The demo could not load its configuration (/demo-config.json). Is the dev server running?';
    return;
  }
  setDemoConfig(config);
  const client = createDemoClient(config);
  // For the end-to-end tests, which call the broker from the page (Playwright cannot see SharedWorkers).
  (window as unknown as { __authbroker: typeof client }).__authbroker = client;
  root.render(
    <StrictMode>
      <AuthProvider client={client}>
        <App />
      </AuthProvider>
    </StrictMode>,
  );
}

void boot();
