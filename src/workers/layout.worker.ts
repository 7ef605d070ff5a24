// Graph layout off the main thread: receives a LayoutInput, answers with the LayoutOutput.
import { layoutGraph, type LayoutInput } from './graph-layout.ts';

self.onmessage = (event: MessageEvent<{ id: number; input: LayoutInput }>) => {
  const { id, input } = event.data;
  try {
    self.postMessage({ id, output: layoutGraph(input) });
  } catch (e) {
    self.postMessage({ id, error: e instanceof Error ? e.message : String(e) });
  }
};
