// Transient replay state of the open run: where the playhead is, whether it plays, how fast. The step itself is also
// mirrored into the URL (`step` param) by the run page, so a link reproduces it; writing the URL is debounced there
// because browsers throttle history updates, while every view reads the position from here at once.
import { create } from 'zustand';

/** Playback speeds in steps per second. */
export const SPEEDS = [0.5, 1, 2, 4, 8, 16, 32] as const;
export const DEFAULT_SPEED = 2;

export interface PlayheadState {
  runId: string | undefined;
  /** Position in the run's replay steps. */
  position: number;
  /** Number of replay steps of the open run. */
  length: number;
  playing: boolean;
  /** Steps per second while playing. */
  speed: number;
  /** Open a run at a position (keeps the speed, stops playing). */
  load(runId: string, length: number, position: number): void;
  moveTo(position: number): void;
  moveBy(delta: number): void;
  setPlaying(playing: boolean): void;
  togglePlaying(): void;
  setSpeed(speed: number): void;
  /** Next or previous entry of SPEEDS. */
  changeSpeed(direction: 1 | -1): void;
}

export const clampPosition = (position: number, length: number) => Math.max(0, Math.min(length - 1, Math.trunc(position)));

export const usePlayhead = create<PlayheadState>((set, get) => ({
  runId: undefined,
  position: 0,
  length: 0,
  playing: false,
  speed: DEFAULT_SPEED,
  load(runId, length, position) {
    set({ runId, length, position: length > 0 ? clampPosition(position, length) : 0, playing: false });
  },
  moveTo(position) {
    const { length } = get();
    if (length === 0) return;
    const next = clampPosition(position, length);
    if (next !== get().position) set({ position: next });
  },
  moveBy(delta) {
    get().moveTo(get().position + delta);
  },
  setPlaying(playing) {
    // Playing from the last step starts over.
    if (playing && get().position >= get().length - 1) set({ position: 0 });
    set({ playing: playing && get().length > 1 });
  },
  togglePlaying() {
    get().setPlaying(!get().playing);
  },
  setSpeed(speed) {
    set({ speed });
  },
  changeSpeed(direction) {
    const i = SPEEDS.findIndex((s) => s >= get().speed);
    const at = i === -1 ? SPEEDS.length - 1 : i;
    set({ speed: SPEEDS[Math.max(0, Math.min(SPEEDS.length - 1, at + direction))] });
  },
}));
