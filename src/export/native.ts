// Write runs as a native session file (SPEC §2). Round trip: import → export → import gives identical runs.
import { SESSION_FORMAT, SESSION_VERSION } from '../model/session-format.ts';
import { hashText } from '../model/hash.ts';
import type { LlmCallRecord, Run, Session } from '../model/types.ts';
import { compactRun } from '../model/session-spans.ts';
import { jsonParts } from './json-parts.ts';

export interface SessionParts {
  runs: Run[];
  title?: string;
  engineSettings?: Record<string, unknown>;
  llmCalls?: LlmCallRecord[];
  simulated?: boolean;
  createdAt?: number;
}

export function buildSession(parts: SessionParts): Session {
  const session: Session = {
    format: SESSION_FORMAT,
    version: SESSION_VERSION,
    id: `session-${hashText(parts.runs.map((r) => r.id).join('\n'))}`,
    runs: parts.runs,
    engineSettings: parts.engineSettings ?? {},
    llmCalls: parts.llmCalls ?? [],
  };
  if (parts.title !== undefined) session.title = parts.title;
  if (parts.createdAt !== undefined) session.createdAt = parts.createdAt;
  if (parts.simulated) session.simulated = true;
  return session;
}

/** The API key is never part of a session: engine settings are written without any `apiKey` field. */
function withoutSecrets(settings: Record<string, unknown>): Record<string, unknown> {
  return JSON.parse(JSON.stringify(settings, (key, value) => (key === 'apiKey' ? undefined : value)));
}

export function exportSession(parts: SessionParts, indent = 0): string {
  return JSON.stringify(sessionOf(parts), null, indent || undefined);
}

/** exportSession's text in parts (json-parts.ts): a session of any size, for a Blob. */
export function exportSessionParts(parts: SessionParts, indent = 0): string[] {
  return jsonParts(sessionOf(parts), { indent });
}

function sessionOf(parts: SessionParts): Session {
  return buildSession({ ...parts, runs: parts.runs.map(compactRun), engineSettings: withoutSecrets(parts.engineSettings ?? {}) });
}
