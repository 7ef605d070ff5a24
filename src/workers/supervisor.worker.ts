// The supervisor worker: its API (supervisor-api.ts) exposed to the page over Comlink.
import * as Comlink from 'comlink';
import { supervisorApi } from './supervisor-api.ts';

export type { SupervisorJob, SupervisorJobEvents, SupervisorJobResult, SupervisorWorkerApi } from './supervisor-api.ts';

Comlink.expose(supervisorApi());
