// Errors that cross the page/engine boundary.

/**
 * An engine call failed. kind is the machine-readable class sent by the
 * engine ("canceled", "not_found", "decode.truncated", "panic", "internal",
 * ...); cause, when the engine sent one, is an Error with its own kind;
 * status, when set, is the HTTP status of the engine's failed fetch.
 */
export class EngineError extends Error {
  constructor(kind, message, cause, status) {
    super(message, cause ? { cause } : undefined);
    this.name = 'EngineError';
    this.kind = kind;
    if (status) this.status = status;
  }

  /** Builds an EngineError from a decoded glue Error message. */
  static fromWire(e) {
    let cause;
    if (e.cause || e.causeKind) {
      cause = new Error(e.cause);
      cause.kind = e.causeKind;
    }
    return new EngineError(e.kind, e.message, cause, e.status);
  }
}

/**
 * The engine is gone: its worker died, its Go program exited, or it could not
 * start. Every pending call is rejected with it; call restart() to go on.
 */
export class EngineCrashedError extends EngineError {
  constructor(message) {
    super('crashed', message);
    this.name = 'EngineCrashedError';
  }
}
