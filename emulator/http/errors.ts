/** A plain (non-known) error: the status and a text/plain body holding exactly the message (PROTOCOL.md §2.3). */
export class StatusError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}
