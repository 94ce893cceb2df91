// Errors that cross the page/engine boundary.

/**
 * An engine call failed. kind is the machine-readable class sent by the
 * engine ("canceled", "not_found", "decode.truncated", "panic", "internal",
 * ...); cause, when the engine sent one, is an Error with its own kind;
 * status, when set, is the HTTP status of the engine's failed fetch.
 */
export class GlueCallError extends Error {
  /**
   * @param {string} kind
   * @param {string} message
   * @param {Error & { kind?: string }} [cause]
   * @param {number} [status]
   */
  constructor(kind, message, cause, status) {
    super(message, cause ? { cause } : undefined);
    this.name = 'GlueCallError';
    this.kind = kind;
    // Declarations for the type checker: both are set only when given.
    /** @type {(Error & { kind?: string }) | undefined} */
    this.cause; // eslint-disable-line no-unused-expressions
    /** @type {number | undefined} */
    this.status; // eslint-disable-line no-unused-expressions
    if (status) this.status = status;
  }

  /** Builds a GlueCallError from a decoded glue Error message. */
  static fromWire(e) {
    /** @type {(Error & { kind?: string }) | undefined} */
    let cause;
    if (e.cause || e.causeKind) {
      cause = new Error(e.cause);
      cause.kind = e.causeKind;
    }
    return new GlueCallError(e.kind, e.message, cause, e.status);
  }
}

/**
 * The engine is gone: its worker died, its Go program exited, or it could not
 * start. Every pending call is rejected with it; call restart() to go on.
 */
export class GlueCrashedError extends GlueCallError {
  /** @param {string} message */
  constructor(message) {
    super('crashed', message);
    this.name = 'GlueCrashedError';
  }
}
