// Maps the addon's coded rejections onto the core's typed errors.
import {
  BackendUnavailableError,
  CapacityError,
  ConcurrentAccessError,
  DisposedError,
  EngineFailedError,
  StatefulChatError,
} from "../../core/errors";
import type { NativeError } from "./addon";

/**
 * A KV snapshot that does not fit this model (another model, shape, dtype or format, or a
 * damaged file): the addon refused it before touching the state. The core has no code of
 * its own for it, so it is an engine failure by code and this class by type.
 */
export class SnapshotMismatchError extends EngineFailedError {
  readonly nativeCode = "snapshot_mismatch";
}

function isNativeError(error: unknown): error is NativeError {
  return error instanceof Error && typeof (error as Partial<NativeError>).code === "string";
}

export function fromNativeError(error: unknown, what = "Core ML session"): StatefulChatError {
  if (error instanceof StatefulChatError) return error;
  if (!isNativeError(error)) return new EngineFailedError(String(error), { cause: error });
  switch (error.code) {
    case "capacity_exceeded":
      return new CapacityError(error.position ?? 0, error.requested ?? 0, error.capacity ?? 0);
    case "concurrent_access":
      return new ConcurrentAccessError();
    case "disposed":
      return new DisposedError(what);
    case "backend_unavailable":
      return new BackendUnavailableError(error.message);
    case "snapshot_mismatch":
      return new SnapshotMismatchError(error.message, { cause: error });
    case "model_invalid":
    case "model_load_failed":
      return new StatefulChatError(error.code, error.message, { cause: error });
    default:
      return new EngineFailedError(error.message, { cause: error });
  }
}
