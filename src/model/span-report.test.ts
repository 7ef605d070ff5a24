import { describe, expect, it } from 'vitest';
import { emptySpanReport, spanReportExtras, spanReportLine } from './span-report.ts';

describe('span report wording (issue 20)', () => {
  const report = { ...emptySpanReport(), read: 5, agents: 2, modelCalls: 1, toolCalls: 1, plain: 1, handoffs: 3, orphans: 1 };

  it('the line sums to the spans read and leaves the handoffs out', () => {
    expect(spanReportLine(report)).toBe('5 spans: 2 agent spans, 1 model call, 1 tool call, 1 kept as span, none dropped');
  });

  it('the extras name the handoffs and orphans as outside the sum', () => {
    expect(spanReportExtras(report)).toBe(
      'not in the sum: 3 handoffs made from the agent spans (not spans of their own); 1 span naming a parent not in the file (kept as roots, counted above)',
    );
    expect(spanReportExtras({ ...report, handoffs: 0, orphans: 0 })).toBeUndefined();
  });
});
