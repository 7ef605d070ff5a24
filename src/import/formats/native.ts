// The native session file: our own format, versioned, validated with the zod schema (SPEC §2).
import { Look, quickLookOf } from '../../model/fast-check-schema.ts';
import { migrateRun } from '../../model/migrate.ts';
import { hydrateRun } from '../../model/session-spans.ts';
import { Session } from '../../model/schema.ts';
import { SESSION_FORMAT, SESSION_VERSION } from '../../model/session-format.ts';
import type { Session as SessionType } from '../../model/types.ts';
import { FormatProblem } from '../errors.ts';
import type { FormatImporter } from '../format.ts';
import { isObject } from '../read.ts';

function jsonPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((acc, key) => (typeof key === 'number' ? `${acc}[${key}]` : `${acc}.${String(key)}`), '$');
}

export const nativeImporter: FormatImporter = {
  id: 'native',
  label: 'MAS Replay session',
  fileName: /\.(session|masreplay)\.json(\.gz)?$/i,
  sniff: (doc) => doc.kind === 'json' && isObject(doc.value) && doc.value.format === SESSION_FORMAT,
  importDoc(doc) {
    const value = doc.kind === 'json' ? doc.value : undefined;
    if (isObject(value) && typeof value.version === 'number' && value.version > SESSION_VERSION) {
      throw new FormatProblem('$.version', `session version ${value.version} is newer than this studio reads (${SESSION_VERSION})`);
    }
    // A session the quick look finds valid is read as it is: zod would give back the same values (ADR 0076), and under
    // the page's Content-Security-Policy it runs without its compiled parsers, ~4 µs a step. Any other is zod's.
    let session: SessionType;
    // The CLI's schema is a stand-in (ADR 0048): it has no quick look, and zod checks.
    if (quickLookOf(Session)?.(value) === Look.Valid) session = value as SessionType;
    else {
      const parsed = Session.safeParse(value);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw new FormatProblem(jsonPath(issue.path), issue.message);
      }
      session = parsed.data;
    }
    return {
      // Version 1 sessions kept the runner's semantics in `raw`; they are read into the typed fields (ADR 0014).
      runs: session.runs.map((r) => hydrateRun(migrateRun(r))),
      annotationSets: [],
      engineSettings: session.engineSettings,
      llmCalls: session.llmCalls,
      warnings: [],
    };
  },
};
