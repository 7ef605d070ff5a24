// @vitest-environment jsdom
// A view that throws leaves the frame (header, navigation) working and says which view failed (issue 17, item 7).
import { cleanup, render, screen } from '@testing-library/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { afterEach, expect, it, vi } from 'vitest';
import { useUrl } from '../store/url.ts';
import { App } from './app.tsx';

vi.mock('../features/library/library-page.tsx', () => ({
  LibraryPage: () => {
    throw new TypeError("Cannot read properties of undefined (reading 'steps')");
  },
}));

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

it('shows the failed view by name with its error while the navigation still renders', () => {
  vi.spyOn(console, 'error').mockImplementation(() => {});
  useUrl.setState({ view: 'library', params: {} });
  render(
    <QueryClientProvider client={new QueryClient()}>
      <App />
    </QueryClientProvider>,
  );
  const alert = screen.getByRole('alert');
  expect(alert.getAttribute('data-failed-panel')).toBe('Library view');
  expect(alert.textContent).toContain("TypeError: Cannot read properties of undefined (reading 'steps')");
  expect(screen.getByRole('navigation', { name: 'Views' })).toBeTruthy();
  expect(screen.getByRole('button', { name: 'Compare' })).toBeTruthy();
});
