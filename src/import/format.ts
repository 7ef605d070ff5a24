// The contract every importer module implements.
import type { LlmCallRecord, Run } from '../model/types.ts';
import type { AnnotationSet } from '../model/annotations.ts';
import type { ParsedInput } from './parse-input.ts';
import type { MapProgress } from '../model/run-builder.ts';

export type FormatId =
  | 'native'
  | 'otlp'
  | 'span-tree'
  | 'trail-annotations'
  | 'langfuse'
  | 'chat-log'
  | 'openai-chat'
  | 'agentrx-ground-truth'
  | 'message-bus'
  | 'message-bus-log'
  | 'span-attributes';

// Annotation sets are the model's (src/model/annotations.ts): importers produce them, the model attaches them.
export type { AnnotationSet };

export interface ImportResult {
  runs: Run[];
  annotationSets: AnnotationSet[];
  /** Native sessions carry engine settings and recorded LLM calls. */
  engineSettings?: Record<string, unknown>;
  llmCalls?: LlmCallRecord[];
  /** Things the user should know that did not stop the import. */
  warnings: string[];
  /**
   * The importer's mapping progress, when its total kept a tick per step for the checks made on the built runs
   * (implausibleValueWarnings): the file's import goes on with it, so the bar moves to the end instead of standing at
   * "done" while they run (a chat log: ~1.4 s at 1M messages). Not part of the imported file.
   */
  checksProgress?: MapProgress;
}

export interface FormatImporter {
  id: FormatId;
  label: string;
  /** Pass 1 of detection: a file name that suggests this format. */
  fileName?: RegExp;
  /** Pass 2: a cheap structural check of the parsed document. Must not depend on the file name. */
  sniff(doc: ParsedInput): boolean;
  /** Map the document into the model. Throws FormatProblem (with a JSON path) on bad input. */
  importDoc(doc: ParsedInput): ImportResult;
  /** importDoc reads `doc.text` (not only the parsed values); see detectText's `dropText`. */
  readsText?: boolean;
  /**
   * Every file of this format asks for token estimates (it records no usage): the import worker loads the token
   * counter before mapping it rather than on the first refused estimate (ADR 0038).
   */
  estimatesTokens?: boolean;
  /**
   * importDoc checks the nesting depth of a JSON document whose depth is not checked yet (`depthUnchecked`) as it
   * reads it, and clears the flag when the whole document is checked; it throws (anything) where it finds a value
   * too deep, and importDetected then names it. Other importers get a document checked beforehand.
   */
  checksDepth?: boolean;
}

/** What the import worker hands back for one file: the structured-clone-safe part of an imported file. */
export interface LoadedFile {
  file: string;
  format: string;
  formatLabel: string;
  runs: Run[];
  warnings: string[];
  llmCalls?: LlmCallRecord[];
  annotationSets?: AnnotationSet[];
  engineSettings?: Record<string, unknown>;
}
