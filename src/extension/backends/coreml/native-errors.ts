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
    case "model_invalid":
    case "model_load_failed":
      return new StatefulChatError(error.code, error.message, { cause: error });
    default:
      return new EngineFailedError(error.message, { cause: error });
  }
}
