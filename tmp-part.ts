import { generateFlatAgentTrace } from './bench/gen-flat-agent-otlp.ts';
import { importFiles } from './src/workers/import-files.ts';
import { tracePartSlices } from './src/features/run-view/run-view-model.ts';
import { finish } from './src/model/slices.ts';
const r = await importFiles([{ name: 'big.json', text: generateFlatAgentTrace(100_000) }]);
const run = r.loaded[0].runs[0];
console.log('steps', run.steps.length);
for (let k = 0; k < 1; k++) { const t = performance.now(); finish(tracePartSlices(run)); console.log('part', (performance.now() - t).toFixed(0)); }
