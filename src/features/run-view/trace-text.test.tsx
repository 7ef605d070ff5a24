// @vitest-environment jsdom
// Huge step texts render lazily (issue 14 goal 3): the first screen at once, more on demand, the whole text by copy
// and download; the step list's one-line summary reads only the head of a huge text.
import '@testing-library/jest-dom/vitest';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { usePlayhead } from '../../store/playhead.ts';
import { makeRun } from '../../testing/test-runs.ts';
import { codePoints } from '../../ui/truncated-text.tsx';
import { runViewOf } from './run-view-model.ts';
import { StepInspector } from './step-inspector.tsx';
import { stepSummary } from './step-list.tsx';
import { cutAt, FIRST_SCREEN_LINES, firstScreenEnd, MORE_CHUNK, TraceText } from './trace-text.tsx';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

/** 10 MB on one line, words and spaces: folding its white space at once takes seconds. */
const HUGE = `start ${'abcd efghi '.repeat(1024 * 1024)}end`;

describe('huge step texts', () => {
  it('a step with a 10 MB single-line message shows its first screen, with more, copy and download on demand', () => {
    const run = makeRun('huge', { steps: [{ id: 's0', index: 0, kind: 'message', agentId: 'a', output: HUGE }] });
    const view = runViewOf(run);
    usePlayhead.getState().load('huge', view.steps.length, 0);
    render(<StepInspector view={view} />);
    const inspector = screen.getByTestId('inspector');
    expect(inspector.textContent!.length).toBeLessThan(5000);
    expect(screen.getByTestId('inspector-output')).toHaveTextContent(/^.*start abcd efghi/);
    // No "show all" for a text this long: laying it out whole would block the page.
    expect(screen.queryByRole('button', { name: /^show all/ })).toBeNull();
    const more = screen.getByTestId('text-more');
    expect(more).toHaveTextContent(`show more (${(1500 + MORE_CHUNK).toLocaleString()} of ${HUGE.length.toLocaleString()} characters)`);
    fireEvent.click(more);
    expect(screen.getByTestId('inspector-output').querySelector('pre')!.textContent!.length).toBe(1500 + MORE_CHUNK + 1);
    fireEvent.click(screen.getByRole('button', { name: 'show less' }));
    expect(screen.getByTestId('inspector-output').querySelector('pre')!.textContent!.length).toBe(1501);
  });

  it('downloads and copies the whole text', async () => {
    const blobs: Blob[] = [];
    const createObjectURL = vi.fn((blob: Blob) => {
      blobs.push(blob);
      return 'blob:test';
    });
    vi.stubGlobal('URL', Object.assign(URL, { createObjectURL, revokeObjectURL: vi.fn() }));
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => {});
    const writeText = vi.fn(async () => {});
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    render(<TraceText text={HUGE} />);
    fireEvent.click(screen.getByTestId('text-download'));
    expect(blobs).toHaveLength(1);
    expect(blobs[0].size).toBe(HUGE.length);
    expect(await blobs[0].text()).toBe(HUGE);
    fireEvent.click(screen.getByTestId('text-copy'));
    expect(writeText).toHaveBeenCalledWith(HUGE);
  });

  it('keeps "show all" for texts of moderate size, and never cuts a surrogate pair', () => {
    const text = `${'x'.repeat(1499)}😀${'y'.repeat(3000)}`;
    expect(cutAt(text, 1500)).toBe(1499);
    render(<TraceText text={text} />);
    expect(screen.getByText(/^x+…$/)).toBeInTheDocument();
    fireEvent.click(screen.getByRole('button', { name: `show all (${text.length.toLocaleString()} characters)` }));
    expect(screen.getByText(text)).toBeInTheDocument();
    expect(screen.queryByTestId('text-download')).toBeNull();
  });

  it('cuts the first screen by lines too, shown without a scroll box; a grown text scrolls in its box', () => {
    // Short lines: cut after the first screen's lines although the text is under the character limit.
    const lines = Array.from({ length: 100 }, (_, i) => `line ${i}`).join('\n');
    expect(lines.length).toBeLessThan(1500);
    expect(firstScreenEnd(lines, 1500)).toBe(lines.indexOf(`\nline ${FIRST_SCREEN_LINES}`));
    // A long line counts as the lines it wraps to; a short text is whole.
    expect(firstScreenEnd('x'.repeat(5000), 1500)).toBe(1500);
    // 70 characters wrap to two lines: 15 of them fill the first screen (1,064 of 1,500 characters).
    expect(firstScreenEnd(`${'x'.repeat(70)}\n`.repeat(20), 1500)).toBe(15 * 71 - 1);
    expect(firstScreenEnd('one\ntwo', 1500)).toBe(7);
    render(<TraceText text={lines} />);
    const pre = () => document.querySelector('pre')!;
    expect(pre().textContent).toBe(`${lines.slice(0, firstScreenEnd(lines, 1500))}…`);
    // The first screen clips and scrolls nothing: a scroll box's painted bounds follow its text on every move.
    expect(pre().className).not.toMatch(/overflow|max-h/);
    fireEvent.click(screen.getByRole('button', { name: `show all (${lines.length.toLocaleString()} characters)` }));
    expect(pre().textContent).toBe(lines);
    expect(pre().className).toMatch(/max-h-\[32rem\] overflow-auto/);
    fireEvent.click(screen.getByRole('button', { name: 'show less' }));
    expect(pre().className).not.toMatch(/overflow/);
  });

  it('summarises a step with a 10 MB text from its head, as the whole text would be summarised', () => {
    // Folding the white space of all 10 MB takes seconds; the head alone, well under a frame. The string methods that
    // fold or split text are watched: none of them is called on more than the head (4,096 characters).
    const watched = (['replace', 'replaceAll', 'split'] as const).map((name) => vi.spyOn(String.prototype, name));
    const summary = stepSummary({ id: 's', index: 0, kind: 'message', agentId: 'a', output: HUGE });
    const longest = watched.reduce((n, spy) => spy.mock.contexts.reduce((m: number, text) => Math.max(m, String(text).length), n), 0);
    const calls = watched.reduce((n, spy) => n + spy.mock.calls.length, 0);
    for (const spy of watched) spy.mockRestore();
    expect(summary).toBe(`${`start ${'abcd efghi '.repeat(20)}`.slice(0, 140)}…`);
    expect(calls).toBeGreaterThan(0);
    expect(longest).toBeLessThanOrEqual(4096);
    // Texts whose head is mostly white space give what folding the whole text gives.
    for (const output of [`${' \n'.repeat(5000)}tail text`, `${' '.repeat(4090)}${'word '.repeat(50)}`, `a${'\t'.repeat(10_000)}b`, 'short  text ']) {
      expect(stepSummary({ id: 's', index: 0, kind: 'message', agentId: 'a', output })).toBe(fold(output));
    }
  });

  it('counts code points without an array of every character', () => {
    expect(codePoints('a😀b', 2)).toEqual({ end: 3, count: 3 });
    expect(codePoints('a😀b', 5)).toEqual({ end: 4, count: 3 });
    expect(codePoints(HUGE, 10)).toEqual({ end: 10, count: HUGE.length });
  });
});

function fold(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 140 ? `${line.slice(0, 140)}…` : line;
}
