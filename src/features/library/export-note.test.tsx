// @vitest-environment jsdom
// An export that fails says why in the Library (a click does not wait for its file): here the export worker cannot
// start at all (jsdom has no Worker), and the note names the file and the cause; dismissed, it goes.
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { makeRun } from '../../testing/test-runs.ts';
import { exportOtlpFile, useExports } from './download.ts';
import { ExportNote } from './export-note.tsx';

afterEach(() => {
  cleanup();
  useExports.setState({ running: 0, failed: undefined });
});

describe('ExportNote', () => {
  it('shows nothing idle, then why an export failed, until dismissed', async () => {
    render(<ExportNote />);
    expect(screen.queryByRole('alert')).toBeNull();
    await act(() => exportOtlpFile([makeRun('r1')], 'r1.otlp.json'));
    const alert = screen.getByRole('alert');
    expect(alert.textContent).toMatch(/Export failed/);
    expect(alert.textContent).toMatch(/r1\.otlp\.json could not be exported: .*Worker/);
    expect(useExports.getState().running).toBe(0);
    fireEvent.click(screen.getByRole('button', { name: /dismiss/i }));
    expect(screen.queryByRole('alert')).toBeNull();
  });
});
