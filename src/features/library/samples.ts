// The bundled samples (public/samples, made by scripts/gen-samples.ts): simulated sessions so the studio is useful
// offline. Loaded on `?samples=1`, on the very first visit when the library is empty, and by the "Load samples" button.
import { fetchSource, openSources } from './open-files.ts';
import { importInWorker } from '../../workers/import-client.ts';

export interface SampleEntry {
  file: string;
  title: string;
  description: string;
  runs: number;
}

export interface SampleIndex {
  simulated: true;
  samples: SampleEntry[];
}

const SAMPLES_BASE = `${import.meta.env.BASE_URL}samples/`;
const VISITED_KEY = 'mas-replay:visited';

export async function fetchSampleIndex(): Promise<SampleIndex> {
  const response = await fetch(`${SAMPLES_BASE}index.json`);
  if (!response.ok) throw new Error(`the sample index answered HTTP ${response.status}`);
  return (await response.json()) as SampleIndex;
}

/** Fetch every sample listed in the index and open them together. */
export async function loadSamples(): Promise<void> {
  const index = await fetchSampleIndex();
  const sources = await Promise.all(index.samples.map((s) => fetchSource(`${SAMPLES_BASE}${s.file}`)));
  // Marked as the studio's own: the import worker's idle preload of the token counter still runs after them (ADR 0109).
  await openSources(sources, 'the bundled samples', (files, options) => importInWorker(files, { ...options, bundled: true }));
}

/** True once per browser profile: the first time the studio is opened. Later visits respect an emptied library. */
export function takeFirstVisit(): boolean {
  try {
    if (localStorage.getItem(VISITED_KEY)) return false;
    localStorage.setItem(VISITED_KEY, String(Date.now()));
    return true;
  } catch {
    return false;
  }
}
