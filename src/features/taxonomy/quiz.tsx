// Quiz mode: show a handoff, pick its type and whom to ask, see the explanation, keep score (a point for the type, a
// point for the addressee). Keyboard: 1–5 pick the type, s / r / n the addressee, Enter checks and goes on.
// Our teaching cases by default; edges a person labelled and put in the gallery can be added (their type is the
// person's label; the addressee is scored only where the clarifier asked that edge with the same type).
import { useEffect, useMemo, useRef } from 'react';
import { create } from 'zustand';
import { CLARIFIER_TYPES, TYPE_INFO, type Addressee, type ClarifierType } from '../../engine/clarifier/index.ts';
import { Badge } from '../../ui/badge.tsx';
import { Button } from '../../ui/button.tsx';
import { useLibrary } from '../../store/library.ts';
import { DOMAIN_LABEL, TEACHING_CASES, type TeachingCase } from './teaching-cases.ts';
import { traceCases, type TraceCase } from './taxonomy-model.ts';
import { Panel, TextBlock, TypeBadge } from './type-ui.tsx';

type Whom = Addressee | 'nobody';

/** One quiz item: one of our cases, or an edge from a loaded trace. */
export interface QuizCase {
  id: string;
  type: ClarifierType;
  toAgent: Addressee | null;
  /** false when there is no reference addressee (a person's label on a trace edge the clarifier did not ask). */
  whomScored: boolean;
  label: string;
  title: string;
  task: string;
  sender: string;
  receiver: string;
  receiverRole?: string;
  earlier?: string;
  message: string;
  question?: string;
  revised?: string;
  explanation: string;
}

export function quizCaseFromTeaching(c: TeachingCase): QuizCase {
  const { id, type, toAgent, title, task, sender, receiver, receiverRole, earlier, message, question, revised, explanation } = c;
  return { id, type, toAgent, whomScored: true, label: DOMAIN_LABEL[c.domain], title, task, sender, receiver, receiverRole, earlier, message, question, revised, explanation };
}

export function quizCaseFromTrace(c: TraceCase): QuizCase {
  const cl = c.clarification;
  const asked = cl && !cl.heuristic && !cl.malformed && cl.type === c.type && c.type !== 'NONE' ? cl : undefined;
  return {
    id: `trace:${c.id}`,
    type: c.type,
    toAgent: asked ? asked.toAgent : null,
    whomScored: c.type === 'NONE' || asked !== undefined,
    label: 'real trace',
    title: c.runTitle,
    task: c.task || '(not recorded)',
    sender: c.sender,
    receiver: c.receiver,
    message: c.message,
    question: asked?.question,
    revised: asked?.changed ? asked.revisedMessage : undefined,
    explanation: `Labelled ${c.type} by a person on a loaded trace${c.note ? `: ${c.note.replace(/[.!?]?$/, (p) => p || '.')}` : '.'}${c.type !== 'NONE' && !asked ? ' There is no reference addressee for this edge, so only the type is scored.' : ''}`,
  };
}

const OURS = TEACHING_CASES.map(quizCaseFromTeaching);

interface QuizAnswer {
  caseId: string;
  type: ClarifierType;
  whom: Whom;
  typeRight: boolean;
  whomRight: boolean;
  whomScored: boolean;
}

interface QuizState {
  items: QuizCase[];
  order: string[];
  index: number;
  type?: ClarifierType;
  whom?: Whom;
  answers: QuizAnswer[];
  /** The current item has been checked and its explanation is showing. */
  checked: boolean;
  /** Start again over these items (default: the same ones). */
  restart(seed?: number, items?: QuizCase[]): void;
  pickType(t: ClarifierType): void;
  pickWhom(w: Whom): void;
  check(): void;
  next(): void;
}

/** A small deterministic shuffle, so a restart gives a new order without Math.random in tests' way. */
export function shuffled<T>(items: readonly T[], seed: number): T[] {
  const out = [...items];
  let s = seed >>> 0 || 1;
  for (let i = out.length - 1; i > 0; i--) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

const expectedWhom = (c: QuizCase): Whom => c.toAgent ?? 'nobody';

export const scoreOf = (answers: readonly QuizAnswer[]) => answers.reduce((s, a) => s + (a.typeRight ? 1 : 0) + (a.whomScored && a.whomRight ? 1 : 0), 0);
export const maxScoreOf = (answers: readonly QuizAnswer[]) => answers.reduce((s, a) => s + 1 + (a.whomScored ? 1 : 0), 0);

export const useQuiz = create<QuizState>((set, get) => ({
  items: OURS,
  order: shuffled(OURS.map((c) => c.id), 7),
  index: 0,
  answers: [],
  checked: false,
  restart(seed = Date.now(), items = get().items) {
    set({ items, order: shuffled(items.map((c) => c.id), seed), index: 0, answers: [], checked: false, type: undefined, whom: undefined });
  },
  pickType(t) {
    if (get().checked) return;
    // NONE means nobody is asked.
    set(t === 'NONE' ? { type: t, whom: 'nobody' } : { type: t, whom: get().whom === 'nobody' ? undefined : get().whom });
  },
  pickWhom(w) {
    if (!get().checked) set({ whom: w });
  },
  check() {
    const { items, order, index, type, whom, checked, answers } = get();
    const c = items.find((x) => x.id === order[index]);
    if (!c || checked || type === undefined || whom === undefined) return;
    set({ checked: true, answers: [...answers, { caseId: c.id, type, whom, typeRight: type === c.type, whomRight: whom === expectedWhom(c), whomScored: c.whomScored }] });
  },
  next() {
    if (!get().checked) return;
    set({ index: get().index + 1, checked: false, type: undefined, whom: undefined });
  },
}));

export function Quiz() {
  const q = useQuiz();
  const runs = useLibrary((s) => s.runs);
  const fromTraces = useMemo(() => traceCases(Object.values(runs)).map(quizCaseFromTrace), [runs]);
  const includesTraces = q.items.length > OURS.length;
  const total = q.order.length;
  const done = q.index >= total;
  const c = done ? undefined : q.items.find((x) => x.id === q.order[q.index]);
  const score = scoreOf(q.answers);
  const root = useRef<HTMLDivElement>(null);

  // Keys go to the quiz as soon as it opens (not to the tab that opened it).
  useEffect(() => root.current?.focus(), []);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const target = e.target as HTMLElement | null;
      if (target && (target.tagName === 'INPUT' || target.tagName === 'TEXTAREA' || target.tagName === 'SELECT')) return;
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      const s = useQuiz.getState();
      const n = Number(e.key);
      if (n >= 1 && n <= CLARIFIER_TYPES.length) s.pickType(CLARIFIER_TYPES[n - 1]);
      else if (e.key === 's') s.pickWhom('sender');
      else if (e.key === 'r') s.pickWhom('receiver');
      else if (e.key === 'n') s.pickWhom('nobody');
      else if (e.key === 'Enter') {
        // A focused ordinary button (Next, Restart, a tab) handles its own Enter; the answer choices do not.
        if (target?.tagName === 'BUTTON' && target.getAttribute('role') !== 'radio') return;
        if (s.checked) s.next();
        else s.check();
      } else return;
      e.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  return (
    <div className="space-y-3 focus:outline-none" data-testid="quiz" ref={root} tabIndex={-1}>
      <div className="flex flex-wrap items-center gap-3 text-sm">
        <span data-testid="quiz-progress">
          {done ? `Finished ${total} of ${total}` : `Handoff ${q.index + 1} of ${total}`}
        </span>
        <span className="font-semibold" data-testid="quiz-score" data-score={score} data-max={maxScoreOf(q.answers)}>
          Score: {score} / {maxScoreOf(q.answers)}
        </span>
        <Button
          size="sm"
          onClick={() => {
            q.restart();
            root.current?.focus();
          }}
        >
          Restart
        </Button>
        {fromTraces.length > 0 && (
          <label className="inline-flex items-center gap-1 text-xs text-slate-700">
            <input type="checkbox" checked={includesTraces} onChange={(e) => {
                q.restart(undefined, e.target.checked ? [...OURS, ...fromTraces] : OURS);
                // Back to the quiz, so the answer keys work at once.
                root.current?.focus();
              }}
            />
            Include {fromTraces.length === 1 ? 'the edge' : `the ${fromTraces.length} edges`} from your traces in the gallery (restarts)
          </label>
        )}
        <span className="text-xs text-slate-500">Keys: 1–5 type · s / r / n whom · Enter check, then next</span>
      </div>
      {done ? <QuizResult /> : c && <QuizItem c={c} />}
    </div>
  );
}

function QuizItem({ c }: { c: QuizCase }) {
  const q = useQuiz();
  const answer = q.checked ? q.answers[q.answers.length - 1] : undefined;
  const whoms: { id: Whom; label: string }[] = [
    { id: 'sender', label: `the sender (${c.sender})` },
    { id: 'receiver', label: `the receiver (${c.receiver})` },
    { id: 'nobody', label: 'nobody' },
  ];
  return (
    <Panel
      title={
        <span className="flex items-center gap-2">
          <Badge tone={c.label === 'real trace' ? 'info' : 'neutral'}>{c.label}</Badge> What is wrong at this handoff, and whom would you ask?
        </span>
      }
      testId="quiz-item"
    >
      <div className="space-y-2 text-xs">
        <TextBlock label="Task">{c.task}</TextBlock>
        <p>
          <span className="font-medium">Handoff:</span> {c.sender} → {c.receiver}
          {c.receiverRole ? ` (${c.receiver}: ${c.receiverRole})` : ''}
        </p>
        {c.earlier && <TextBlock label="Earlier on this link">{c.earlier}</TextBlock>}
        <TextBlock label="Message" testId="quiz-message">{c.message}</TextBlock>
        <fieldset>
          <legend className="mb-1 font-medium text-slate-700">Type</legend>
          <div className="flex flex-wrap gap-1" role="radiogroup" aria-label="Type">
            {CLARIFIER_TYPES.map((t, i) => (
              <button
                key={t}
                type="button"
                role="radio"
                aria-checked={q.type === t}
                disabled={q.checked}
                onClick={() => q.pickType(t)}
                className={`rounded border px-2 py-1 ${q.type === t ? 'border-indigo-500 bg-indigo-600 text-white' : 'border-slate-300 bg-white text-slate-800 hover:bg-slate-50'} disabled:cursor-default`}
              >
                <span className="mr-1 text-[10px] opacity-70">{i + 1}</span>
                {t} · {TYPE_INFO[t].name}
              </button>
            ))}
          </div>
        </fieldset>
        <fieldset>
          <legend className="mb-1 font-medium text-slate-700">Ask whom</legend>
          <div className="flex flex-wrap gap-1" role="radiogroup" aria-label="Ask whom">
            {whoms.map((w) => (
              <button
                key={w.id}
                type="button"
                role="radio"
                aria-checked={q.whom === w.id}
                disabled={q.checked || (q.type === 'NONE' && w.id !== 'nobody')}
                onClick={() => q.pickWhom(w.id)}
                className={`rounded border px-2 py-1 ${q.whom === w.id ? 'border-indigo-500 bg-indigo-600 text-white' : 'border-slate-300 bg-white text-slate-800 hover:bg-slate-50'} disabled:opacity-50`}
              >
                <span className="mr-1 text-[10px] opacity-70">{w.id[0]}</span>
                {w.label}
              </button>
            ))}
          </div>
        </fieldset>
        {!q.checked ? (
          <p className="flex items-center gap-2">
            <Button variant="primary" disabled={q.type === undefined || q.whom === undefined} onClick={q.check}>
              Check
            </Button>
            {(q.type === undefined || q.whom === undefined) && (
              <span className="text-xs text-slate-600" data-testid="quiz-check-why">
                {q.type === undefined && q.whom === undefined ? 'Pick a type and whom to ask first.' : q.type === undefined ? 'Pick a type first.' : 'Pick whom to ask first.'}
              </span>
            )}
          </p>
        ) : (
          answer && (
            <div className="space-y-2" data-testid="quiz-feedback" data-correct={answer.typeRight && answer.whomRight ? 'yes' : 'no'}>
              <p className={answer.typeRight ? 'text-emerald-800' : 'text-red-800'}>
                Type: {answer.typeRight ? 'right' : 'not quite'} — it is <TypeBadge type={c.type} full />.
              </p>
              {c.whomScored ? (
                <p className={answer.whomRight ? 'text-emerald-800' : 'text-red-800'}>
                  Whom: {answer.whomRight ? 'right' : 'not quite'} — {c.toAgent === null ? 'nobody is asked' : `ask the ${c.toAgent} (${c.toAgent === 'sender' ? c.sender : c.receiver})`}.
                </p>
              ) : (
                <p className="text-slate-600">Whom: not scored for this edge.</p>
              )}
              {c.question && <p className="rounded border border-indigo-200 bg-indigo-50 p-2">Question that fixes it: {c.question}</p>}
              {c.revised && <TextBlock label="Revised handoff" tone="fixed">{c.revised}</TextBlock>}
              <p className="rounded bg-slate-50 p-2 text-slate-700">{c.explanation}</p>
              <Button variant="primary" onClick={q.next} autoFocus>
                {q.index + 1 >= q.order.length ? 'See the result' : 'Next handoff'}
              </Button>
            </div>
          )
        )}
      </div>
    </Panel>
  );
}

function QuizResult() {
  const q = useQuiz();
  const max = maxScoreOf(q.answers);
  const score = scoreOf(q.answers);
  const scoredWhom = q.answers.filter((a) => a.whomScored);
  const missed = q.answers.filter((a) => !a.typeRight || (a.whomScored && !a.whomRight));
  return (
    <Panel title="Result" testId="quiz-result">
      <p className="text-sm">
        You scored <span className="font-semibold">{score}</span> of {max} ({max > 0 ? Math.round((100 * score) / max) : 0}%): {q.answers.filter((a) => a.typeRight).length} of {q.answers.length} types and{' '}
        {scoredWhom.filter((a) => a.whomRight).length} of {scoredWhom.length} addressees right.
      </p>
      {missed.length > 0 && (
        <ul className="mt-2 space-y-1 text-xs">
          {missed.map((a) => {
            const c = q.items.find((x) => x.id === a.caseId)!;
            return (
              <li key={a.caseId}>
                “{c.title}”: you said {a.type} / {a.whom}; it is {c.type} / {c.toAgent ?? 'nobody'}.
              </li>
            );
          })}
        </ul>
      )}
      <Button className="mt-2" variant="primary" onClick={() => q.restart()}>
        Take it again
      </Button>
    </Panel>
  );
}
