// @vitest-environment jsdom
// One failing panel shows what failed, as text, with a way to try again, while its siblings keep rendering.
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { useState } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ErrorBoundary } from './error-boundary.tsx';

let failing = true;
function Chart() {
  if (failing) throw new TypeError('Cannot read properties of undefined (reading "<b>x</b>")');
  return <p>chart drawn</p>;
}

beforeEach(() => {
  failing = true;
  vi.spyOn(console, 'error').mockImplementation(() => {}); // React and the boundary report the error; expected here
});
afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

describe('ErrorBoundary', () => {
  it('shows the failed panel by name and its error as text; siblings still render', () => {
    render(
      <div>
        <ErrorBoundary name="token chart">
          <Chart />
        </ErrorBoundary>
        <ErrorBoundary name="step list">
          <p>step list drawn</p>
        </ErrorBoundary>
      </div>,
    );
    const alert = screen.getByRole('alert');
    expect(alert.textContent).toContain('The token chart could not be shown');
    expect(alert.getAttribute('data-failed-panel')).toBe('token chart');
    // The message is text, never markup.
    expect(alert.textContent).toContain('TypeError: Cannot read properties of undefined (reading "<b>x</b>")');
    expect(alert.querySelector('b')).toBeNull();
    expect(screen.getByText('step list drawn')).toBeTruthy();
  });

  it('tries again on request', () => {
    render(
      <ErrorBoundary name="token chart">
        <Chart />
      </ErrorBoundary>,
    );
    expect(screen.getByRole('alert')).toBeTruthy();
    failing = false;
    fireEvent.click(screen.getByRole('button', { name: 'Try again' }));
    expect(screen.queryByRole('alert')).toBeNull();
    expect(screen.getByText('chart drawn')).toBeTruthy();
  });

  it('tries again by itself when its reset key changes (another run)', () => {
    function Harness() {
      const [run, setRun] = useState('r1');
      return (
        <>
          <button type="button" onClick={() => setRun('r2')}>
            next run
          </button>
          <ErrorBoundary name="token chart" resetKey={run}>
            <Chart />
          </ErrorBoundary>
        </>
      );
    }
    render(<Harness />);
    expect(screen.getByRole('alert')).toBeTruthy();
    failing = false;
    fireEvent.click(screen.getByRole('button', { name: 'next run' }));
    expect(screen.getByText('chart drawn')).toBeTruthy();
  });

  it('shows a thrown non-Error value too', () => {
    function Throws(): never {
      throw null; // eslint-disable-line no-throw-literal
    }
    render(
      <ErrorBoundary name="loop panel">
        <Throws />
      </ErrorBoundary>,
    );
    expect(screen.getByRole('alert').textContent).toContain('The loop panel could not be shown');
  });
});
