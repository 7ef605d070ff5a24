// Every endpoint call becomes an LlmCallRecord the caller owns (it goes into the session), and a cassette answers
// from such records by request hash so a session replays offline exactly.
import type { LlmCallRecord } from '../model/types.ts';
import { DEFAULT_LLM_SETTINGS, type LlmRole, type LlmSettings } from './settings.ts';

export class CallRecorder {
  readonly records: LlmCallRecord[] = [];
  private readonly seen = new Map<string, number>();

  constructor(private readonly onRecord?: (record: LlmCallRecord) => void) {}

  /** Ids are `<hash>#<n>` (n-th identical request in this recorder), so a replay reproduces the same ids. */
  nextId(requestHash: string): string {
    const n = (this.seen.get(requestHash) ?? 0) + 1;
    this.seen.set(requestHash, n);
    return `${requestHash}#${n}`;
  }

  add(record: LlmCallRecord): void {
    this.records.push(record);
    this.onRecord?.(record);
  }
}

export class Cassette {
  private readonly byHash = new Map<string, LlmCallRecord[]>();
  private readonly cursor = new Map<string, number>();

  /** Failed calls are skipped: a replay answers only with what actually came back. */
  constructor(records: readonly LlmCallRecord[]) {
    for (const r of records) {
      if (r.error !== undefined || r.response === undefined) continue;
      const list = this.byHash.get(r.requestHash);
      if (list) list.push(r);
      else this.byHash.set(r.requestHash, [r]);
    }
  }

  /** Identical requests get their recorded answers in order; past the last one the last answer repeats. */
  take(requestHash: string): LlmCallRecord | undefined {
    const list = this.byHash.get(requestHash);
    if (!list) return undefined;
    const i = this.cursor.get(requestHash) ?? 0;
    this.cursor.set(requestHash, i + 1);
    return list[Math.min(i, list.length - 1)];
  }

  get size(): number {
    let n = 0;
    for (const l of this.byHash.values()) n += l.length;
    return n;
  }
}

/** Where a replay's client points: never contacted, every answer comes from the cassette. */
export const REPLAY_BASE_URL = 'replay://recorded-calls';

/**
 * Settings under which a client asks exactly what these records asked (the recorded model, temperature and maximum
 * tokens go into each request's hash), for answering from a cassette of them. Undefined when no successful chat call
 * was recorded.
 */
export function replaySettings(records: readonly LlmCallRecord[], role: LlmRole): LlmSettings | undefined {
  const chat = records.find((r) => r.error === undefined && r.response !== undefined && typeof r.request === 'object' && r.request !== null && 'messages' in r.request);
  if (!chat) return undefined;
  const request = chat.request as { temperature?: unknown; max_tokens?: unknown };
  return {
    ...DEFAULT_LLM_SETTINGS,
    baseUrl: REPLAY_BASE_URL,
    models: { [role]: chat.model },
    temperature: typeof request.temperature === 'number' ? request.temperature : DEFAULT_LLM_SETTINGS.temperature,
    maxTokens: typeof request.max_tokens === 'number' ? request.max_tokens : undefined,
    retries: 0,
  };
}
