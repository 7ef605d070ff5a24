// @vitest-environment jsdom
// A view loaded ahead renders in the first commit, with no fallback; one not loaded yet suspends as React.lazy does,
// and a failed load can be tried again.
import { act, cleanup, render, screen } from '@testing-library/react';
import { Suspense } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import { lazyView } from './lazy-view.ts';

afterEach(cleanup);

const page = () => <p>run page</p>;

function shell(view: ReturnType<typeof lazyView>) {
  return (
    <Suspense fallback={<p>loading…</p>}>
      <view.Component />
    </Suspense>
  );
}

describe('lazyView', () => {
  it('renders a preloaded view at once, without suspending', async () => {
    const view = lazyView(async () => ({ page }), (m) => m.page);
    await view.preload();
    render(shell(view));
    expect(screen.queryByText('loading…')).toBeNull();
    expect(screen.getByText('run page')).toBeTruthy();
  });

  it('suspends on a view not loaded yet, then shows it', async () => {
    let resolve!: (m: { page: typeof page }) => void;
    const view = lazyView(() => new Promise<{ page: typeof page }>((r) => (resolve = r)), (m) => m.page);
    render(shell(view));
    expect(screen.getByText('loading…')).toBeTruthy();
    await act(async () => resolve({ page }));
    expect(await screen.findByText('run page')).toBeTruthy();
  });

  it('loads again after a failed load', async () => {
    let calls = 0;
    const view = lazyView(async () => {
      calls++;
      if (calls === 1) throw new Error('chunk failed');
      return { page };
    }, (m) => m.page);
    await expect(view.preload()).rejects.toThrow('chunk failed');
    await view.preload();
    expect(calls).toBe(2);
    render(shell(view));
    expect(screen.getByText('run page')).toBeTruthy();
  });

  it('passes its props to the view, loaded ahead or not', async () => {
    const Greeting = ({ name }: { name: string }) => <p>hello {name}</p>;
    const ahead = lazyView(async () => ({ Greeting }), (m) => m.Greeting);
    await ahead.preload();
    render(<ahead.Component name="ada" />);
    expect(screen.getByText('hello ada')).toBeTruthy();
    const later = lazyView(async () => ({ Greeting }), (m) => m.Greeting);
    render(
      <Suspense fallback={<p>loading…</p>}>
        <later.Component name="grace" />
      </Suspense>,
    );
    expect(await screen.findByText('hello grace')).toBeTruthy();
  });
});

