// One live job at a time from a panel (the runner's team run, a fork): busy, the last turn as progress, cancel, the
// error it ended with, and the run it made entering the library with its own model calls.
import { useRef, useState } from 'react';
import type { LlmCallRecord, Run } from '../../model/types.ts';
import type { LiveEvents } from '../../workers/live-client.ts';
import { addLiveRunToLibrary } from './live-library.ts';
import { takeCallsOf } from './run-calls.ts';

export function useLiveJob() {
  const [busy, setBusy] = useState(false);
  const [progress, setProgress] = useState('');
  const [error, setError] = useState<string>();
  const stop = useRef<AbortController | undefined>(undefined);

  /**
   * Run `job` in the worker with the events and signal to pass on; once its run is in the library, `done` gets the
   * result. A throw from either ends the job with its message as the error.
   */
  const start = async <R extends { run: Run }>(job: (events: LiveEvents, signal: AbortSignal) => Promise<R>, done: (result: R) => void): Promise<void> => {
    const controller = new AbortController();
    stop.current = controller;
    setBusy(true);
    setError(undefined);
    const calls = new Map<string, LlmCallRecord>();
    try {
      const result = await job({ onCall: (r) => void calls.set(r.id, r), onTurn: setProgress }, controller.signal);
      await addLiveRunToLibrary(result.run, takeCallsOf(result.run, calls));
      done(result);
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
      setProgress('');
    }
  };

  return { busy, progress, error, setError, start, cancel: () => stop.current?.abort() };
}
