// The playhead's connections to the outside: the URL (`step` param), the play timer and the keyboard.
import { useEffect, useRef } from 'react';
import { positionFromStepParam, stepNumber } from '../../model/steps.ts';
import { usePlayhead } from '../../store/playhead.ts';
import { useUrl } from '../../store/url.ts';
import { actionForKey, targetPosition, type PlayheadAction } from './keymap.ts';
import type { RunView } from './run-view-model.ts';

/** Browsers throttle history updates (Chromium: ~200 per 10 s), so the URL follows the playhead once it rests. */
const URL_WRITE_DELAY_MS = 120;
/**
 * The write itself waits for an idle moment (at most this long): `history.replaceState` and the renders after it took
 * ~2 ms, and landing in the frame of the next key press made that press miss its frame.
 */
const URL_WRITE_IDLE_MS = 500;

/** Runs `task` once the page is idle (or after `timeout` ms); returns a cancel function. */
function whenIdle(task: () => void, timeout: number): () => void {
  if (typeof requestIdleCallback !== 'function') {
    const id = setTimeout(task, 0);
    return () => clearTimeout(id);
  }
  const id = requestIdleCallback(task, { timeout });
  return () => cancelIdleCallback(id);
}

/**
 * Opens the run at the step named in the URL, follows later URL changes (back/forward), and writes the current step
 * back to the URL as its 1-based number (old links naming a step id still open it). Returns the requested value when
 * the URL names a step the run does not have.
 */
export function useStepInUrl(view: RunView): string | undefined {
  const stepParam = useUrl((s) => s.params.step);
  const runId = view.run.id;
  // The `step` this hook last followed or wrote. The URL follows the playhead a moment late, so a view rebuilt meanwhile
  // (a live run growing, a result or label saved into the run) finds the step before in it: only a value the URL comes
  // to hold by itself (the link opened, back/forward, an edit) moves the playhead; one seen already is not followed again.
  const seen = useRef<{ runId: string; step: string | undefined } | undefined>(undefined);
  useEffect(() => {
    const playhead = usePlayhead.getState();
    const fresh = seen.current === undefined || seen.current.runId !== runId || seen.current.step !== stepParam;
    const requested = fresh && stepParam !== undefined ? positionFromStepParam(stepParam, view.steps, view.positionOf) : undefined;
    // A step the run does not have yet (a link into a live run) is looked for again as the run grows.
    if (stepParam === undefined || requested !== undefined) seen.current = { runId, step: stepParam };
    if (playhead.runId !== runId || playhead.length !== view.steps.length) {
      // A run that grows (received live) keeps the newest step in view while the playhead rests on the last step;
      // once the person moves it elsewhere, it stays where they put it.
      const following =
        playhead.runId === runId && playhead.length > 0 && view.steps.length > playhead.length && playhead.position === playhead.length - 1 && (requested === undefined || requested === playhead.position);
      playhead.load(runId, view.steps.length, following ? view.steps.length - 1 : (requested ?? (playhead.runId === runId ? playhead.position : 0)));
    } else if (requested !== undefined && playhead.position !== requested) {
      playhead.moveTo(requested);
    }
  }, [view, runId, stepParam]);

  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let cancelIdle: (() => void) | undefined;
    const unsubscribe = usePlayhead.subscribe((state, previous) => {
      if (state.position === previous.position && state.runId === previous.runId) return;
      clearTimeout(timer);
      cancelIdle?.();
      cancelIdle = undefined;
      timer = setTimeout(() => (cancelIdle = whenIdle(write, URL_WRITE_IDLE_MS)), URL_WRITE_DELAY_MS);
    });
    const write = () => {
      cancelIdle = undefined;
      const { runId: openRun, position } = usePlayhead.getState();
      const id = view.steps[position]?.id;
      if (openRun !== runId || id === undefined || useUrl.getState().params.run !== runId) return;
      // The 1-based step number; the id only when the number is also some other step's id (ids win when read).
      const number = String(stepNumber(position));
      const at = view.positionOf.get(number);
      const value = at === undefined || at === position ? number : id;
      if (useUrl.getState().params.step === value) return;
      seen.current = { runId, step: value };
      useUrl.getState().setParams({ step: value });
    };
    return () => {
      clearTimeout(timer);
      cancelIdle?.();
      unsubscribe();
    };
  }, [view, runId]);

  return stepParam !== undefined && positionFromStepParam(stepParam, view.steps, view.positionOf) === undefined ? stepParam : undefined;
}

/** Advances the playhead at the chosen speed while playing; stops on the last step. */
export function usePlayTimer() {
  const playing = usePlayhead((s) => s.playing);
  const speed = usePlayhead((s) => s.speed);
  useEffect(() => {
    if (!playing) return;
    const timer = setInterval(() => {
      const { position, length, moveTo, setPlaying } = usePlayhead.getState();
      if (position >= length - 1) setPlaying(false);
      else moveTo(position + 1);
    }, 1000 / speed);
    return () => clearInterval(timer);
  }, [playing, speed]);
}

function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName);
}

/** Applies a navigation or playback action to the playhead. Returns false when nothing happened. */
export function applyAction(action: PlayheadAction, view: RunView): boolean {
  const playhead = usePlayhead.getState();
  switch (action) {
    case 'toggle-play':
      playhead.togglePlaying();
      return true;
    case 'faster':
      playhead.changeSpeed(1);
      return true;
    case 'slower':
      playhead.changeSpeed(-1);
      return true;
    case 'help':
      return false;
    default: {
      const target = targetPosition(action, playhead.position, playhead.length, {
        errors: view.errorPositions,
        annotations: view.annotationPositions,
        loops: view.loopPositions,
      });
      if (target === undefined) return false;
      playhead.moveTo(target);
      return true;
    }
  }
}

/** The run view's keyboard bindings (see ./keymap.ts), active while the run view is open. */
export function useRunKeyboard(view: RunView, toggleHelp: () => void) {
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (isTyping(event.target)) return;
      const action = actionForKey(event);
      if (!action) return;
      event.preventDefault();
      if (action === 'help') toggleHelp();
      else applyAction(action, view);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [view, toggleHelp]);
}
