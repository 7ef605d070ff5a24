// The endpoint as the page sees it. Features never import the client (src/llm): what they need of it — the settings
// the engines receive, which model serves a role, the connection check (`GET /models`), the settings that replay a
// recorded run — comes through the store, which turns its preferences into those settings (engine-settings.ts).
export { modelFor, originOf, type LlmRole, type LlmSettings } from '../llm/settings.ts';
export { testConnection, type ConnectionResult } from '../llm/connection.ts';
export { replaySettings } from '../llm/recorder.ts';
