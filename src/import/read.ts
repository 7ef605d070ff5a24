// Readers that check a value's type and say where it is when it is wrong. Importers use these instead of casts,
// so a file of the wrong shape gives a FormatProblem naming the JSON path, never a TypeError.
import { FormatProblem } from './errors.ts';

export type JsonObject = Record<string, unknown>;

export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}

export function expectObject(v: unknown, path: string): JsonObject {
  if (!isObject(v)) throw new FormatProblem(path, `expected an object, found ${describe(v)}`);
  return v;
}

export function expectArray(v: unknown, path: string): unknown[] {
  if (!Array.isArray(v)) throw new FormatProblem(path, `expected an array, found ${describe(v)}`);
  return v;
}

export function expectString(v: unknown, path: string): string {
  if (typeof v !== 'string') throw new FormatProblem(path, `expected a string, found ${describe(v)}`);
  return v;
}

/** A string, or undefined when absent/null; numbers and booleans are turned into text. */
export function optString(v: unknown, path: string): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  throw new FormatProblem(path, `expected a string, found ${describe(v)}`);
}

/** A number, accepting numbers written as strings ("1454"); undefined when absent, null or empty. */
export function optNumber(v: unknown, path: string): number | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string') {
    const n = Number(v);
    if (Number.isFinite(n)) return n;
  }
  throw new FormatProblem(path, `expected a number, found ${typeof v === 'string' ? JSON.stringify(v.slice(0, 40)) : describe(v)}`);
}

/** Text of any JSON value for display: strings as they are, anything else as JSON. */
export function asText(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === undefined) return '';
  try {
    return JSON.stringify(v, null, 2) ?? String(v);
  } catch {
    return String(v);
  }
}

/** ISO-8601 duration (`PT15.2S`, `PT1M2.5S`, `P1DT2H`) in milliseconds; undefined when it is not one. */
export function parseIsoDuration(text: string): number | undefined {
  const m = /^P(?:(\d+(?:\.\d+)?)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$/.exec(text);
  if (!m || text === 'P' || text === 'PT') return undefined;
  const [, d, h, min, s] = m;
  return ((Number(d ?? 0) * 24 + Number(h ?? 0)) * 60 + Number(min ?? 0)) * 60_000 + Number(s ?? 0) * 1000;
}

/** A timestamp as epoch milliseconds: ISO strings, epoch seconds/ms/µs/ns as numbers or strings. */
export function parseTime(v: unknown): number | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v === 'number' || (typeof v === 'string' && /^\d+(\.\d+)?$/.test(v))) {
    const n = Number(v);
    if (!Number.isFinite(n)) return undefined;
    if (n > 1e17) return n / 1e6; // nanoseconds
    if (n > 1e14) return n / 1e3; // microseconds
    if (n > 1e11) return n; // milliseconds
    // Seconds; a number so far below zero that its milliseconds overflow (−1.8e305 s) is no time at all.
    const ms = n * 1000;
    return Number.isFinite(ms) ? ms : undefined;
  }
  if (typeof v === 'string') {
    // Python isoformat without a zone is UTC in these exports; more than 3 fractional digits are cut for Date.parse.
    const normal = v.replace(/(\.\d{3})\d+/, '$1');
    const hasZone = /(Z|[+-]\d\d:?\d\d)$/.test(normal);
    const t = Date.parse(hasZone ? normal : `${normal}Z`);
    return Number.isFinite(t) ? t : undefined;
  }
  return undefined;
}
