// Public surface of the rectify-or-reject engine (SPEC §5.2). Typical use:
//   const pool = await preparePool(parsePool(text, 'math-pool.json'), { client, cache });   // embeddings once, cached
//   const one = await gateMessage({ task, agent, input, output }, { pool, params, client }); // one message (live runner)
//   const run = await rectifyRun(recordedRun, { pool, params, client, onItem });    // a recorded chat run
//   const gate = rectifierGate({ params, pool });                                            // the live runner's message gate
// Without a client: BM25 retrieval only, results labelled retrieval-only, no verdicts.
export * from './indicators.ts';
export * from './retrieval.ts';
export * from './verdict.ts';
export * from './gate.ts';
export * from './replay.ts';
export * from './statistics.ts';
export * from './mining.ts';
export { composeFeedback, retrievalQuery } from './prompts.ts';
export * from './live-gate.ts';
export * from './estimate.ts';
