// @vitest-environment jsdom
// The shared tab row: roles and aria-selected, one tab in the Tab order, arrow keys / Home / End select and focus.
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { useState } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import { Tabs } from './tabs.tsx';

const TABS = [
  { id: 'a', label: 'Alpha' },
  { id: 'b', label: 'Beta' },
  { id: 'c', label: 'Gamma' },
] as const;

function Harness() {
  const [tab, setTab] = useState<(typeof TABS)[number]['id']>('a');
  return <Tabs tabs={TABS} current={tab} onSelect={setTab} label="Letters" />;
}

const selected = () => screen.getAllByRole('tab').filter((t) => t.getAttribute('aria-selected') === 'true').map((t) => t.textContent);

afterEach(cleanup);

describe('Tabs', () => {
  it('names the list, marks the selected tab and keeps only it in the Tab order', () => {
    render(<Harness />);
    expect(screen.getByRole('tablist', { name: 'Letters' })).toBeTruthy();
    expect(selected()).toEqual(['Alpha']);
    expect(screen.getAllByRole('tab').map((t) => t.tabIndex)).toEqual([0, -1, -1]);
    fireEvent.click(screen.getByRole('tab', { name: 'Gamma' }));
    expect(selected()).toEqual(['Gamma']);
  });

  it('moves with the arrow keys (wrapping), Home and End, focusing the tab it selects', () => {
    render(<Harness />);
    const list = screen.getByRole('tablist');
    fireEvent.keyDown(list, { key: 'ArrowRight' });
    expect(selected()).toEqual(['Beta']);
    expect(document.activeElement?.textContent).toBe('Beta');
    fireEvent.keyDown(list, { key: 'End' });
    expect(selected()).toEqual(['Gamma']);
    fireEvent.keyDown(list, { key: 'ArrowRight' });
    expect(selected()).toEqual(['Alpha']);
    fireEvent.keyDown(list, { key: 'ArrowLeft' });
    expect(selected()).toEqual(['Gamma']);
    fireEvent.keyDown(list, { key: 'Home' });
    expect(selected()).toEqual(['Alpha']);
    expect(document.activeElement?.textContent).toBe('Alpha');
    fireEvent.keyDown(list, { key: 'x' });
    expect(selected()).toEqual(['Alpha']);
  });
});
