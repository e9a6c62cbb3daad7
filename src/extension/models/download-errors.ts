// The ways a model download fails, each with a message a user can act on. A cancelled
// download is the core's CancelledError, not one of these.

export class DownloadError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The bytes received are not the file expected; nothing was kept. */
export class ChecksumMismatchError extends DownloadError {
  constructor(
    readonly url: string,
    readonly expected: string,
    readonly actual: string,
  ) {
    super(`Checksum mismatch for ${url}: expected ${expected}, got ${actual}. The partial file was deleted; the next try starts over.`);
  }
}

/** Neither a pinned checksum nor the hub's own sha256 is known, so the file would be taken on trust. */
export class UnverifiableDownloadError extends DownloadError {
  constructor(readonly url: string) {
    super(
      `${url} cannot be verified: no sha256 is pinned for it and the server did not announce one ` +
        "(the Hugging Face hub sends it as X-Linked-Etag on its redirect). Nothing was downloaded.",
    );
  }
}

/** The hub now serves another file than the one whose sha256 is pinned (the repository changed). */
export class PinnedChecksumConflictError extends DownloadError {
  constructor(
    readonly url: string,
    readonly pinned: string,
    readonly announced: string,
  ) {
    super(
      `The hub serves a different file at ${url} (sha256 ${announced}) than the pinned one (${pinned}). ` +
        "Nothing was downloaded; the catalog entry needs updating.",
    );
  }
}
