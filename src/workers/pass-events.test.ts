// passEventsProxy: a batch of results posted by an offline pass (pump.ts) reaches the page's onItem one by one, in order,
// each with its own resumed flag; the page's other callbacks are the ones it gave.
import { describe, expect, it } from 'vitest';
import { passEventsProxy } from './job-worker.ts';

describe('passEventsProxy', () => {
  it("gives each result of a batch to the page's onItem, in order, with its resumed flag", () => {
    const got: string[] = [];
    const onProgress = () => {};
    const events = passEventsProxy({ onProgress, onItem: (item: string, resumed: boolean) => void got.push(`${item}${resumed ? ' (kept)' : ''}`), onCall: () => {} });
    events.onItems(['a', 'b', 'c'], [true, false, false]);
    events.onItem('d', false);
    expect(got).toEqual(['a (kept)', 'b', 'c', 'd']);
    expect(events.onProgress).toBe(onProgress);
  });
});
