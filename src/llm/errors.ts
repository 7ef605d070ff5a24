// Typed failures of the endpoint client, so callers can tell "try later" from "stop" from "the user cancelled".

export class LlmError extends Error {
  /** Whether another attempt could succeed (the client retries these itself before giving up). */
  readonly retryable: boolean = false;
}

export class HttpError extends LlmError {
  override readonly retryable: boolean;
  constructor(
    readonly status: number,
    readonly body: string,
    /** Milliseconds the server asked us to wait (Retry-After), when it said so. */
    readonly retryAfterMs?: number,
  ) {
    super(`HTTP ${status}${body ? `: ${body.slice(0, 200)}` : ''}`);
    this.name = 'HttpError';
    this.retryable = status === 429 || status === 408 || status >= 500;
  }
}

export class NetworkError extends LlmError {
  override readonly retryable = true;
  constructor(message: string) {
    super(`network error: ${message}`);
    this.name = 'NetworkError';
  }
}

export class TimeoutError extends LlmError {
  override readonly retryable = true;
  constructor(readonly timeoutMs: number) {
    super(`no answer within ${timeoutMs} ms`);
    this.name = 'TimeoutError';
  }
}

/** The body was not the JSON we expected (cut short, or not the OpenAI shape). Often transient, so retried. */
export class MalformedResponse extends LlmError {
  override readonly retryable = true;
  constructor(
    message: string,
    readonly body: string,
  ) {
    super(`malformed response: ${message}`);
    this.name = 'MalformedResponse';
  }
}

export class BudgetExceeded extends LlmError {
  constructor(
    readonly used: number,
    readonly limit: number,
    readonly wanted: number,
  ) {
    super(`token budget exceeded: ${used} of ${limit} used, this call needs about ${wanted} more`);
    this.name = 'BudgetExceeded';
  }
}

export class Cancelled extends LlmError {
  constructor() {
    super('cancelled');
    this.name = 'Cancelled';
  }
}

/** Cassette mode and the request was never recorded: replaying offline cannot answer it. */
export class CassetteMiss extends LlmError {
  constructor(readonly requestHash: string) {
    super(`no recorded answer for request ${requestHash}`);
    this.name = 'CassetteMiss';
  }
}

/** The API key was entered for another origin than the one a request goes to: the request is not sent (SPEC §9). */
export class KeyOriginMismatch extends LlmError {
  constructor(
    readonly keyOrigin: string,
    readonly target: string,
  ) {
    super(`the API key was entered for ${keyOrigin || 'no endpoint'}, not for ${target}: request not sent; enter the key again for ${target}`);
    this.name = 'KeyOriginMismatch';
  }
}
