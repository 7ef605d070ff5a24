// @vitest-environment jsdom
// The per-message card renders model and trace text as text, shows verdicts, dropped audits and the three-part rule's
// note, and labels offline results as retrieval only; the stored parameters fall back field by field.
import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { Attempt } from '../../engine/rectifier/index.ts';
import type { Intervention } from '../../model/types.ts';
import { RectifierDetails, RectifierStateBadge } from './message-card.tsx';

const XSS = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=1</script>';

function iv(attempts: Attempt[], state: string, action: string): Intervention {
  return { id: 'rectifier:s', engine: 'rectifier', stepId: 's', action, reason: 'r', heuristic: state === 'not-audited', details: { state, attempts } };
}

describe('rectifier message card', () => {
  it('verdicts, a dropped audit and the three-part note, all as text', () => {
    const attempt: Attempt = {
      attempt: 1,
      output: `answer ${XSS}`,
      retrieval: 'embedding',
      keywords: { scenario: ['counting'], action: [XSS] },
      retrieved: [
        { index: 3, name: 'A_FLAW', score: 0.81234 },
        { index: 7, name: 'B_NOTE', score: 0.5 },
        { index: 9, name: 'C_DROP', score: 0.4 },
      ],
      audits: [
        { indicator: 'A_FLAW', index: 3, tries: 1, flawed: true, llmCallIds: [], verdict: { evidence_quote: 'q', analysis: XSS, suggestion: `fix ${XSS}`, impact_assessment: 'YES', is_flawed: true } },
        { indicator: 'B_NOTE', index: 7, tries: 1, flawed: false, note: 'is_flawed was true but the suggestion is not a concrete fix', llmCallIds: [], verdict: { evidence_quote: 'q', analysis: 'a', suggestion: 'N/A', impact_assessment: 'YES', is_flawed: true } },
        { indicator: 'C_DROP', index: 9, tries: 2, flawed: false, dropped: 'missing is_flawed', llmCallIds: [] },
      ],
      flawed: true,
      feedback: `A reviewer checked ${XSS}`,
    };
    const { container } = render(<RectifierDetails iv={iv([attempt], 'rejected', 'rejected')} />);
    expect(container.querySelector('script, img')).toBeNull();
    expect((window as { __pwned?: number }).__pwned).toBeUndefined();
    expect(screen.getByText(/fix <img src=x/)).toBeTruthy();
    const rows = [...container.querySelectorAll('[data-testid="verdict"]')];
    expect(rows.map((r) => [r.getAttribute('data-flawed'), r.getAttribute('data-dropped')])).toEqual([
      ['true', 'false'],
      ['false', 'false'],
      ['false', 'true'],
    ]);
    expect(rows[0].textContent).toContain('(0.812)');
    expect(rows[1].textContent).toContain('not a concrete fix');
    expect(rows[2].textContent).toContain('left out of the decision');
    expect(rows[2].textContent).toContain('2 tries');
  });

  it('offline results say nothing was audited and list the retrieved indicators with BM25 scores', () => {
    const attempt: Attempt = { attempt: 1, output: 'x', retrieval: 'bm25', retrieved: [{ index: 0, name: 'ONLY', score: 12.345 }], audits: [], flawed: false };
    const { container } = render(<RectifierDetails iv={iv([attempt], 'not-audited', 'retrieval-only')} />);
    expect(container.textContent).toContain('Nothing was audited');
    expect(container.textContent).toContain('BM25 (offline fallback)');
    expect(container.querySelector('[data-testid="retrieved-indicators"]')!.textContent).toContain('ONLY score 12.35');
    render(<RectifierStateBadge iv={iv([attempt], 'not-audited', 'retrieval-only')} />);
    expect(screen.getByText('retrieval only (offline)')).toBeTruthy();
  });

});
