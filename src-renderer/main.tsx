import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { ApiError } from './api/client.js';
import { startConnectionWatch } from './api/connection.js';
import { App } from './app/App.js';
import { applySavedTheme } from './app/theme.js';
import './styles.css';

/** Client errors (4xx) are answers, not glitches: never retry them. */
const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      retry: (count, e) => !(e instanceof ApiError && e.status < 500) && count < 2,
      refetchOnWindowFocus: true,
      staleTime: 2000,
    },
    // A change sent while the service is down fails at once (its button says why), never queued for later.
    mutations: { networkMode: 'always' },
  },
});
startConnectionWatch();
applySavedTheme();

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <App />
    </QueryClientProvider>
  </StrictMode>,
);
