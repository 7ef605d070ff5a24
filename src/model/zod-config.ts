// Zod compiles fast object parsers with `new Function` when it may, and probes for that when the first object
// schema is made. On the page, under our Content-Security-Policy (no 'unsafe-eval'), the probe is refused and the
// browser reports a CSP violation even though zod catches it; the request-recording e2e test treats any violation as
// a failure. So on the page zod runs without that compilation; workers and Node (no such policy) keep it.
import { config } from 'zod';

// Read through globalThis: the model is also compiled without the DOM library (tsconfig.engine.json).
if (typeof (globalThis as { document?: unknown }).document !== 'undefined') config({ jitless: true });
