// Ending an IndexedDB write transaction: used by the page's library writes (store/library-db.ts) and the import
// worker's (import-storage.ts), which must both report a failed write by its cause and leave no rejection unhandled.

/**
 * Wait for every request of a transaction and for its end, never leaving a rejection unhandled; a request that threw
 * at once aborts the transaction (nothing of it lands). Rejects with the first request's own error (the cause, e.g.
 * a value too large), not the abort that follows from it.
 */
export async function settleTransaction(tx: { done: Promise<void>; abort(): void; error?: DOMException | null }, requests: Promise<unknown>[], thrown?: unknown): Promise<void> {
  if (thrown !== undefined) {
    try {
      tx.abort();
    } catch {
      // already finished
    }
  }
  const results = await Promise.allSettled([...requests, tx.done]);
  if (thrown !== undefined) throw thrown;
  const errors = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
  if (errors.length === 0) return;
  throw errors.find((e) => !(e instanceof DOMException && e.name === 'AbortError')) ?? tx.error ?? errors[0];
}
