// Shared by the Node tests of the Core ML addon: the built binary, typed.
import { BackendUnavailableError } from "../../src/extension/core/errors";
import { loadAddon, type CoreMLAddon } from "../../src/extension/backends/coreml/addon";

export function builtAddon(): CoreMLAddon {
  const addon = loadAddon();
  if (addon instanceof BackendUnavailableError) throw addon;
  return addon;
}
