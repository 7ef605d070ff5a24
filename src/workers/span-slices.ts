// A run's stored spans on their way from the import worker's read (import-storage.ts readSpans) to the page's span tree
// (ADR 0103): the slices the worker sends, and the page's side that makes the spans from them.
import { rebuild, RunStrings, type ColumnSlice } from '../model/step-columns.ts';
import type { RunSpan } from '../model/types.ts';

/**
 * A slice of a run's stored spans as it crosses to the page, in order. In columns: rebuilt there, with the strings of
 * the slices before it since the last one marked `fresh` (which starts a new table). As the spans themselves when they
 * cannot go so (a stored item that is not a record).
 */
export type SpanSlice = { columns: ColumnSlice; fresh: boolean } | { items: RunSpan[] };

/** The page's side: each slice taken in the order sent, its spans made and given to `restore`, then kept in `spans`. */
export class SpanSliceTaker {
  readonly spans: RunSpan[] = [];
  private strings = new RunStrings();
  /** Set once a slice could not be rebuilt: the read has failed, and the slices after it are not made. */
  private failed: Error | undefined;

  constructor(
    private readonly runId: string,
    private readonly restore: (span: RunSpan) => RunSpan = (s) => s,
  ) {}

  take(slice: SpanSlice): void {
    if (this.failed) throw this.failed;
    let items: readonly RunSpan[];
    if ('columns' in slice) {
      if (slice.fresh) this.strings = new RunStrings();
      try {
        items = rebuild<RunSpan>(slice.columns, this.strings);
      } catch (e) {
        // Stored columns are read as untrusted: what cannot be rebuilt fails the read, named.
        this.failed = new Error(`the stored spans of ${this.runId} cannot be read: ${e instanceof Error ? e.message : String(e)}`);
        throw this.failed;
      }
    } else items = slice.items;
    for (const span of items) this.spans.push(this.restore(span));
  }
}
