// @vitest-environment jsdom
import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { CompareStep } from './compare-model.ts';
import { StepDiff } from './step-diff.tsx';

function step(patch: Partial<CompareStep>, observation: string): CompareStep {
  return {
    position: 0,
    step: { id: 's', index: 0, kind: 'action', agentId: 'a', observation },
    agentName: 'search_agent',
    action: 'visit_webpage',
    tokens: 10,
    cumulative: 10,
    interventions: [],
    text: observation,
    ...patch,
  };
}

describe('step diff', () => {
  it('marks words only in A and only in B, as text', () => {
    const { container } = render(
      <StepDiff a={step({}, 'price is 12 EUR <script>alert(1)</script>')} b={step({}, 'price is 15 EUR <script>alert(1)</script>')} aLabel="A" bLabel="B" />,
    );
    expect([...container.querySelectorAll('del')].map((d) => d.textContent)).toEqual(['12']);
    expect([...container.querySelectorAll('ins')].map((d) => d.textContent)).toEqual(['15']);
    // Trace text stays text: the script tag is shown, never parsed into an element.
    expect(container.querySelector('script')).toBeNull();
    expect(screen.getAllByText(/<script>alert\(1\)<\/script>/).length).toBeGreaterThan(0);
  });
  it('shows what a supervisor intervention would hand on instead of the recorded observation', () => {
    const b = step(
      {
        interventions: [
          { id: 'i', engine: 'supervisor', action: 'correct_observation', reason: 'long page', heuristic: true, details: { originalObservation: 'Address: x\n<div>noise</div> table', newObservation: 'Address: x\n table' } },
        ],
      },
      'Address: x\n<div>noise</div> table',
    );
    const { container } = render(<StepDiff a={null} b={b} aLabel="A" bLabel="B" />);
    expect(screen.getByText(/B: observation the supervisor would hand on \(correct_observation, heuristic\)/)).toBeTruthy();
    const field = container.querySelector('[data-field^="B: observation"]')!;
    expect(field.querySelector('del')?.textContent).toContain('<div>noise</div>');
    expect(field.querySelector('ins')).toBeNull();
  });
});
