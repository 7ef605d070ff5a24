// Stored records that failed the schema on load (issue 17, item 7): set aside, never deleted unasked. The Library says
// how many, which and why, and offers them as a JSON download before they can be forgotten.
import { useState } from 'react';
import { forgetQuarantined, usePersistence, type QuarantinedRecord } from '../../store/library-db.ts';
import { Button } from '../../ui/button.tsx';
import { downloadText } from './download.ts';

/** Shown in full up to this many; the download holds every one. */
const LISTED_MAX = 20;

/**
 * JSON of what was set aside. Structured clones may hold what JSON cannot (bigint, cycles): those become text. An
 * object met twice but not inside itself (a run's steps share their `usage` records) is written each time.
 */
export function quarantineText(records: readonly QuarantinedRecord[]): string {
  // Each object's holder where it is being written: JSON.stringify writes depth first, so from a holder up through
  // these links runs the path being written, and a value on it is a cycle.
  const holderOf = new WeakMap<object, object>();
  return JSON.stringify(
    { format: 'mas-replay-quarantine', records },
    function (this: object, _key: string, value: unknown) {
      if (typeof value === 'bigint') return value.toString();
      if (typeof value === 'object' && value !== null) {
        for (let at: object | undefined = this; at !== undefined; at = holderOf.get(at)) if (at === value) return '[cycle]';
        holderOf.set(value, this);
      }
      return value;
    },
    2,
  );
}

export function QuarantineNote() {
  const records = usePersistence((s) => s.quarantined);
  const [confirming, setConfirming] = useState(false);
  if (records.length === 0) return null;
  const n = records.length;
  return (
    <section role="status" data-testid="quarantine-note" className="rounded border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-900">
      <p className="font-semibold">
        {n === 1 ? '1 stored record was' : `${n} stored records were`} set aside: {n === 1 ? 'it does' : 'they do'} not have the shape of a library record,
        so {n === 1 ? 'it is' : 'they are'} kept apart instead of being shown.
      </p>
      <ul className="mt-1 list-disc pl-5 text-xs">
        {records.slice(0, LISTED_MAX).map((q, i) => (
          <li key={i} className="break-words">
            <span className="font-mono">
              {q.store}/{q.key}
            </span>
            : {q.reason}
          </li>
        ))}
        {n > LISTED_MAX && <li>… and {n - LISTED_MAX} more (all are in the download)</li>}
      </ul>
      <div className="mt-2 flex flex-wrap items-center gap-2">
        <Button size="sm" onClick={() => downloadText(quarantineText(records), 'set-aside-records.json')}>
          Export them (JSON)
        </Button>
        {confirming ? (
          <>
            <span className="text-xs">Delete them from this browser for good?</span>
            <Button size="sm" variant="danger" onClick={() => void forgetQuarantined().finally(() => setConfirming(false))}>
              Delete
            </Button>
            <Button size="sm" variant="ghost" onClick={() => setConfirming(false)}>
              Keep
            </Button>
          </>
        ) : (
          <Button size="sm" variant="ghost" onClick={() => setConfirming(true)}>
            Forget them…
          </Button>
        )}
      </div>
    </section>
  );
}
