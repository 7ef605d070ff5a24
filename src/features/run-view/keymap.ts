// The run view's keyboard bindings, as data: the handler and the help overlay both read this table.

export type PlayheadAction =
  | 'toggle-play'
  | 'next'
  | 'prev'
  | 'first'
  | 'last'
  | 'next-error'
  | 'prev-error'
  | 'next-annotation'
  | 'prev-annotation'
  | 'next-loop'
  | 'prev-loop'
  | 'faster'
  | 'slower'
  | 'help';

export interface KeyBinding {
  action: PlayheadAction;
  /** KeyboardEvent.key values. */
  keys: string[];
  label: string;
}

export const KEY_BINDINGS: KeyBinding[] = [
  { action: 'toggle-play', keys: [' '], label: 'Play / pause' },
  { action: 'next', keys: ['ArrowRight', 'j'], label: 'Next step' },
  { action: 'prev', keys: ['ArrowLeft', 'k'], label: 'Previous step' },
  { action: 'first', keys: ['Home'], label: 'First step' },
  { action: 'last', keys: ['End'], label: 'Last step' },
  { action: 'next-error', keys: ['e'], label: 'Next error' },
  { action: 'prev-error', keys: ['E'], label: 'Previous error' },
  { action: 'next-annotation', keys: ['a'], label: 'Next annotation' },
  { action: 'prev-annotation', keys: ['A'], label: 'Previous annotation' },
  { action: 'next-loop', keys: ['l'], label: 'Next repeated call (loop)' },
  { action: 'prev-loop', keys: ['L'], label: 'Previous repeated call (loop)' },
  { action: 'faster', keys: ['+', '=', ']'], label: 'Play faster' },
  { action: 'slower', keys: ['-', '['], label: 'Play slower' },
  { action: 'help', keys: ['?'], label: 'Show / hide this help' },
];

const byKey = new Map(KEY_BINDINGS.flatMap((b) => b.keys.map((k) => [k, b.action] as const)));

export interface KeyLike {
  key: string;
  ctrlKey?: boolean;
  metaKey?: boolean;
  altKey?: boolean;
}

/** The action bound to a key press; none when a modifier other than Shift is held (browser shortcuts win). */
export function actionForKey(event: KeyLike): PlayheadAction | undefined {
  if (event.ctrlKey || event.metaKey || event.altKey) return undefined;
  return byKey.get(event.key);
}

/** Where the playhead can jump to: sorted replay positions. */
export interface JumpTargets {
  errors: ArrayLike<number>;
  annotations: ArrayLike<number>;
  loops: ArrayLike<number>;
}

/** First entry greater than `position` (binary search), undefined when there is none. */
export function nextAfter(sorted: ArrayLike<number>, position: number): number | undefined {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid] <= position) lo = mid + 1;
    else hi = mid;
  }
  return lo < sorted.length ? sorted[lo] : undefined;
}

/** Last entry smaller than `position`, undefined when there is none. */
export function previousBefore(sorted: ArrayLike<number>, position: number): number | undefined {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid] < position) lo = mid + 1;
    else hi = mid;
  }
  return lo > 0 ? sorted[lo - 1] : undefined;
}

/** The position a navigation action moves to, or undefined when it does not move the playhead (or cannot). */
export function targetPosition(action: PlayheadAction, position: number, length: number, targets: JumpTargets): number | undefined {
  if (length === 0) return undefined;
  switch (action) {
    case 'next':
      return Math.min(length - 1, position + 1);
    case 'prev':
      return Math.max(0, position - 1);
    case 'first':
      return 0;
    case 'last':
      return length - 1;
    case 'next-error':
      return nextAfter(targets.errors, position);
    case 'prev-error':
      return previousBefore(targets.errors, position);
    case 'next-annotation':
      return nextAfter(targets.annotations, position);
    case 'prev-annotation':
      return previousBefore(targets.annotations, position);
    case 'next-loop':
      return nextAfter(targets.loops, position);
    case 'prev-loop':
      return previousBefore(targets.loops, position);
    default:
      return undefined;
  }
}
