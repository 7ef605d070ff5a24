// SPEC §8, first load: what the page runs before its first paint is the entry script and the modules the built
// index.html preloads for it (its static imports). zod (the model's schemas) and the tokenizer's data are heavy and
// load on first use. A static import of src/model/schema.ts from the library's journal once put zod there (27 KB
// gzipped, bench/bundle 127 → 157 KB); this reads the served page as a browser would and fails on such a change.
import { expect, test } from '@playwright/test';

/** Text only zod's code carries (its error class's name), and text only the tokenizer's data carries. */
const MARKS = [
  { what: 'zod (src/model/schema.ts)', mark: 'ZodError' },
  { what: 'the tokenizer', mark: '<|endoftext|>' },
];

test('the JS before first paint holds neither zod nor the tokenizer', async ({ request }) => {
  const html = await (await request.get('/')).text();
  const entry = [...html.matchAll(/<script type="module"[^>]*src="([^"]+)"/g)].map((m) => m[1]);
  const preloads = [...html.matchAll(/<link rel="modulepreload"[^>]*href="([^"]+)"/g)].map((m) => m[1]);
  expect(entry).toHaveLength(1);
  expect(preloads.length).toBeGreaterThan(0);
  const scripts = [...entry, ...preloads];
  for (const src of scripts) {
    const text = await (await request.get(src)).text();
    expect(text.length, `${src} was served`).toBeGreaterThan(0);
    for (const { what, mark } of MARKS) expect(text.includes(mark), `${what} in ${src}, a first-paint script`).toBe(false);
  }
});
