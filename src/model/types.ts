// The canonical model (SPEC §2). Every importer maps into these types; every view and engine reads only these.
// Types are inferred from the zod schemas in ./schema.ts, which also validate native sessions on load.
import type { z } from 'zod';
import type * as S from './schema.ts';

export type SourceFormat = z.infer<typeof S.SourceFormat>;
export type StepKind = z.infer<typeof S.StepKind>;
export type TokenUsage = z.infer<typeof S.TokenUsage>;
export type ToolCall = z.infer<typeof S.ToolCall>;
export type ChatMessage = z.infer<typeof S.ChatMessage>;
export type StepError = z.infer<typeof S.StepError>;
export type Agent = z.infer<typeof S.Agent>;
export type AgentRun = z.infer<typeof S.AgentRun>;
export type TurnOrigin = z.infer<typeof S.TurnOrigin>;
export type StepRunner = z.infer<typeof S.StepRunner>;
export type Step = z.infer<typeof S.Step>;
export type Handoff = z.infer<typeof S.Handoff>;
export type Annotation = z.infer<typeof S.Annotation>;
export type Intervention = z.infer<typeof S.Intervention>;
export type LlmCallRecord = z.infer<typeof S.LlmCallRecord>;
export type Outcome = z.infer<typeof S.Outcome>;
export type Stage = z.infer<typeof S.Stage>;
export type Subtask = z.infer<typeof S.Subtask>;
export type SubtaskStatus = z.infer<typeof S.SubtaskStatus>;
export type LayerAgent = z.infer<typeof S.LayerAgent>;
export type ForkStats = z.infer<typeof S.ForkStats>;
export type RunLive = z.infer<typeof S.RunLive>;
export type Run = z.infer<typeof S.Run>;
export type RunSpan = z.infer<typeof S.RunSpan>;
export type SpanKind = z.infer<typeof S.SpanKind>;
export type SpanReport = z.infer<typeof S.SpanReport>;
export type NamingRule = z.infer<typeof S.NamingRule>;
export type DerivedRun = z.infer<typeof S.DerivedRun>;
export type BenchmarkResult = z.infer<typeof S.BenchmarkResult>;
export type BusStepData = z.infer<typeof S.BusStepData>;
export type BusTally = z.infer<typeof S.BusTally>;
export type Session = z.infer<typeof S.Session>;
