// @vitest-environment jsdom
import '@testing-library/jest-dom/vitest';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import { useLibrary } from '../../store/library.ts';
import { makeRun } from '../../testing/test-runs.ts';
import { useUrl } from '../../store/url.ts';
import { TruncatedText } from '../../ui/truncated-text.tsx';
import { ImportCancelled } from '../../workers/import-client.ts';
import { LibraryPage } from './library-page.tsx';
import { ALL_ROWS_MAX, ROWS_PER_STAGE } from './library-table.tsx';
import { openSources, textSource, useImportJobs, type Importer } from './open-files.ts';

function renderPage() {
  const client = new QueryClient();
  return render(
    <QueryClientProvider client={client}>
      <LibraryPage />
    </QueryClientProvider>,
  );
}

beforeEach(() => {
  localStorage.setItem('mas-replay:visited', 'test');
  useLibrary.setState({ hydrated: true, files: [], runs: {}, llmCalls: {}, failures: [] });
  useImportJobs.setState({ jobs: [], lastResult: undefined });
  useUrl.setState({ view: 'library', params: {} });
});
afterEach(cleanup);

describe('library page', () => {
  it('lists a file’s runs with their figures and opens a run on click', async () => {
    const run = makeRun('r1', {
      title: 'Simulated demo run',
      framework: 'smolagents (simulated)',
      simulated: true,
      agents: [
        { id: 'manager', name: 'manager' },
        { id: 'search_agent', name: 'search_agent' },
      ],
      steps: [
        { id: 's0', index: 0, kind: 'action', agentId: 'manager' },
        { id: 's1', index: 1, kind: 'llm', agentId: 'manager', parentStepId: 's0', usage: { input: 1000, output: 234, total: 1234, estimated: true } },
        { id: 's2', index: 2, kind: 'action', agentId: 'search_agent' },
      ],
      orphanSpans: 3,
    });
    useLibrary.getState().addLoaded({ file: 'demo.session.json', format: 'native', formatLabel: 'MAS Replay session', runs: [run], warnings: ['one span had no name'] });
    renderPage();
    const card = screen.getByTestId('library-file');
    expect(within(card).getByRole('heading', { name: 'demo.session.json' })).toBeInTheDocument();
    expect(within(card).getByText('one span had no name')).toBeInTheDocument();
    const row = screen.getByTestId('run-row');
    expect(row).toHaveAttribute('data-file', 'demo.session.json');
    expect(within(row).getByTestId('run-agents')).toHaveTextContent('manager, search_agent');
    expect(within(row).getByTestId('run-steps')).toHaveTextContent('2');
    expect(within(row).getByTestId('run-tokens')).toHaveTextContent('≈1,234estimated');
    expect(within(row).getAllByText('simulated').length).toBeGreaterThan(0);
    expect(within(row).getByText('3 orphan')).toHaveClass('text-amber-700');
    expect(screen.getByTestId('library-shown')).toHaveTextContent(/^1 run$/);
    history.replaceState(null, '', '/');
    await userEvent.click(within(row).getByRole('button', { name: 'Simulated demo run' }));
    expect(useUrl.getState()).toMatchObject({ view: 'run', params: { run: 'r1' } });
  });

  it('removes a file and shows the empty library', async () => {
    useLibrary.getState().addLoaded({ file: 'a.json', format: 'native', formatLabel: 'x', runs: [makeRun('r1')], warnings: [] });
    renderPage();
    await userEvent.click(screen.getByRole('button', { name: 'Remove a.json from the library' }));
    expect(useLibrary.getState().runs).toEqual({});
    expect(screen.getByText('The library is empty.')).toBeInTheDocument();
    expect(screen.getByTestId('undo-toast')).toHaveTextContent('Removed 1 run');
    await userEvent.click(within(screen.getByTestId('undo-toast')).getByRole('button', { name: 'Undo' }));
    expect(Object.keys(useLibrary.getState().runs)).toEqual(['r1']);
    expect(screen.getByTestId('run-row')).toHaveAttribute('data-run-id', 'r1');
  });

  it('one table across files: search, filter, sort, same titles told apart, multi-select remove with undo', async () => {
    useLibrary.getState().addLoaded({ file: 'hand-crafted/3.json', format: 'chat-log', formatLabel: 'Who&When', runs: [makeRun('ww-3', { title: 'Excel task', task: 'sum the sales column' })], warnings: [] });
    useLibrary.getState().addLoaded({
      file: 'tau/airline.json',
      format: 'tau',
      formatLabel: 'tau-bench',
      runs: [makeRun('tau-airline-0001', { title: 'airline', simulated: true }), makeRun('tau-airline-0002', { title: 'airline' })],
      warnings: [],
    });
    renderPage();
    const titles = () => screen.getAllByTestId('run-row').map((r) => r.getAttribute('data-run-id'));
    expect(titles()).toEqual(['ww-3', 'tau-airline-0001', 'tau-airline-0002']);
    expect(screen.getByRole('button', { name: 'airline · …ine-0001' })).toBeInTheDocument();
    expect(screen.getAllByTestId('run-file')[0]).toHaveAttribute('title', 'hand-crafted/3.json');
    expect(screen.getAllByTestId('run-file')[0]).toHaveTextContent('3.jsonhand-crafted/');
    await userEvent.type(screen.getByTestId('library-search'), 'sales');
    expect(titles()).toEqual(['ww-3']);
    await userEvent.clear(screen.getByTestId('library-search'));
    await userEvent.selectOptions(screen.getByRole('combobox', { name: 'Origin' }), 'recorded');
    expect(titles()).toEqual(['ww-3', 'tau-airline-0002']);
    await userEvent.selectOptions(screen.getByRole('combobox', { name: 'Origin' }), 'all');
    await userEvent.click(screen.getByRole('button', { name: 'Run' }));
    await userEvent.click(screen.getByRole('button', { name: /^Run/ }));
    expect(titles()).toEqual(['ww-3', 'tau-airline-0002', 'tau-airline-0001']);
    await userEvent.click(screen.getByRole('checkbox', { name: 'Select airline · …ine-0001' }));
    await userEvent.click(screen.getByRole('checkbox', { name: 'Select Excel task' }));
    await userEvent.click(screen.getByRole('button', { name: 'Remove selected' }));
    expect(titles()).toEqual(['tau-airline-0002']);
    expect(screen.getByTestId('undo-toast')).toHaveTextContent('Removed 2 runs');
    await userEvent.click(within(screen.getByTestId('undo-toast')).getByRole('button', { name: 'Undo' }));
    expect(titles()).toHaveLength(3);
    expect(useLibrary.getState().files.map((f) => f.name)).toEqual(['hand-crafted/3.json', 'tau/airline.json']);
  });

  it('10,000 runs: only the rows in view are in the page', () => {
    const runs = Array.from({ length: 10_000 }, (_, i) => makeRun(`r${i}`, { title: `run ${i}` }));
    useLibrary.getState().addLoaded({ file: 'big.json', format: 'native', formatLabel: 'x', runs, warnings: [] });
    // jsdom lays nothing out: the scroller reports the size a screen would give it.
    const height = vi.spyOn(Element.prototype, 'clientHeight', 'get').mockReturnValue(600);
    const width = vi.spyOn(Element.prototype, 'clientWidth', 'get').mockReturnValue(1200);
    onTestFinished(() => {
      height.mockRestore();
      width.mockRestore();
    });
    // Only a screenful of rows is mounted (the count below), whatever the number of runs: no time bound needed.
    renderPage();
    const rows = screen.getAllByTestId('run-row');
    expect(rows.length).toBeGreaterThan(5);
    expect(rows.length).toBeLessThan(100);
    expect(screen.getByTestId('library-shown')).toHaveTextContent('10,000 runs');
  });

  it('200 runs (all in the page) and 10,000 (virtualised): the table reads no layout when it mounts', async () => {
    // A read of the scroller's size in React's commit forces a layout of the whole page there (~120 ms with 200 runs).
    const height = vi.spyOn(Element.prototype, 'clientHeight', 'get').mockReturnValue(600);
    const width = vi.spyOn(Element.prototype, 'clientWidth', 'get').mockReturnValue(1200);
    const rect = vi.spyOn(Element.prototype, 'getBoundingClientRect');
    onTestFinished(() => {
      height.mockRestore();
      width.mockRestore();
      rect.mockRestore();
    });
    for (const count of [ALL_ROWS_MAX, 10_000]) {
      const runs = Array.from({ length: count }, (_, i) => makeRun(`r${count}-${i}`, { title: `run ${i}` }));
      useLibrary.getState().addLoaded({ file: `many-${count}.json`, format: 'native', formatLabel: 'x', runs, warnings: [] });
      const { unmount } = renderPage();
      if (count === ALL_ROWS_MAX) {
        // Mounted in stages (ROWS_PER_STAGE a task), all of them in the end.
        expect(screen.getAllByTestId('run-row')).toHaveLength(ROWS_PER_STAGE);
        await waitFor(() => expect(screen.getAllByTestId('run-row')).toHaveLength(ALL_ROWS_MAX), { timeout: 10_000 });
      } else expect(screen.getAllByTestId('run-row').length).toBeLessThan(100);
      expect(height).not.toHaveBeenCalled();
      expect(width).not.toHaveBeenCalled();
      expect(rect).not.toHaveBeenCalled();
      unmount();
      useLibrary.setState({ files: [], runs: {} });
    }
  });

  it('shows an import failure with file, format and location, and dismisses it', async () => {
    useLibrary.getState().addFailure({ file: 'bad.json', format: 'span-tree', location: '$.spans[3].child_spans', detail: 'expected an array, found a string' });
    renderPage();
    const alert = screen.getByRole('alert');
    expect(alert).toHaveTextContent('Could not open bad.json');
    expect(alert).toHaveTextContent('span-tree');
    expect(alert).toHaveTextContent('$.spans[3].child_spans');
    expect(alert).toHaveTextContent('expected an array, found a string');
    await userEvent.click(within(alert).getByRole('button', { name: /Dismiss/ }));
    expect(screen.queryByRole('alert')).toBeNull();
  });
});

describe('openSources', () => {
  it('adds what the worker returns and reports the failures', async () => {
    const importer: Importer = async (sources, options) => {
      options?.onProgress?.({ file: sources[0].name, fileIndex: 0, fileCount: 2, phase: 'parsing' });
      expect(useImportJobs.getState().jobs[0].progress?.phase).toBe('parsing');
      return {
        loaded: [{ file: 'a.json', format: 'native', formatLabel: 'x', runs: [makeRun('r1')], warnings: [] }],
        failures: [{ file: 'b.json', format: 'json', location: 'line 1, column 2', detail: 'invalid JSON' }],
      };
    };
    await openSources([textSource('{}', 'a.json'), textSource('{', 'b.json')], undefined, importer);
    expect(Object.keys(useLibrary.getState().runs)).toEqual(['r1']);
    expect(useLibrary.getState().failures.map((f) => f.file)).toEqual(['b.json']);
    expect(useImportJobs.getState()).toMatchObject({ jobs: [], lastResult: 'Opened 1 file · 1 run · 1 not a trace (see below)' });
  });

  it('a cancel leaves the library as it was; a crashed worker becomes a failure per file, never a throw', async () => {
    let cancel!: () => void;
    const slow: Importer = (_sources, options) =>
      new Promise((_, reject) => {
        cancel = () => useImportJobs.getState().jobs[0].cancel();
        options?.signal?.addEventListener('abort', () => reject(new ImportCancelled()));
      });
    const pending = openSources([textSource('{}', 'big.json')], undefined, slow);
    cancel();
    expect(await pending).toBeUndefined();
    expect(useLibrary.getState().files).toEqual([]);
    expect(useLibrary.getState().failures).toEqual([]);

    const crashed: Importer = async () => {
      throw new Error('worker script failed to load');
    };
    await openSources([textSource('{}', 'x.json')], undefined, crashed);
    expect(useLibrary.getState().failures).toMatchObject([{ file: 'x.json', detail: 'the import worker failed: worker script failed to load' }]);
  });
});

describe('TruncatedText', () => {
  it('shows long text truncated and all of it on request, as text', async () => {
    const text = `<script>alert(1)</script>${'x'.repeat(100)}😀`;
    render(<TruncatedText text={text} limit={30} />);
    expect(screen.getByText(/^<script>alert\(1\)<\/script>x{5}…$/)).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'show all (126 characters)' }));
    expect(screen.getByText(text)).toBeInTheDocument();
    expect(document.querySelector('script')).toBeNull();
  });
});
