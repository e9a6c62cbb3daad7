// Whether one more KV cache fits in the GPU's memory, checked before the context is created:
// a chat that does not fit is refused with the figures (DeviceMemoryError) instead of
// failing inside the driver or crashing the engine. Pure; the engine supplies the figures.
//
// The free memory is the lesser of what the device reports and its total less what this
// engine's own allocations are estimated at: some drivers (Mesa's llvmpipe among them)
// report the same free memory whatever has been allocated.

export interface ContextFitInput {
  /** Device memory one more context needs (node-llama-cpp's estimate for its size and the layers offloaded). */
  readonly needed: number;
  readonly device: { readonly total: number; readonly free: number };
  /** Estimated bytes already held on the device by this engine (model and open contexts). */
  readonly heldByEngine: number;
  /** Kept free for the estimates' error (node-llama-cpp's VRAM padding). */
  readonly padding: number;
  readonly openStates: number;
  readonly contextSize: number;
  /** "Vulkan llvmpipe (…)", for the message. */
  readonly deviceName: string;
}

const mb = (bytes: number) => `${Math.max(0, Math.round(bytes / (1024 * 1024)))} MB`;

export function freeDeviceMemory(input: Pick<ContextFitInput, "device" | "heldByEngine" | "padding">): number {
  return Math.min(input.device.free, input.device.total - input.heldByEngine) - input.padding;
}

/** Undefined when it fits; otherwise the message of the refusal. */
export function contextRefusal(input: ContextFitInput): string | undefined {
  const free = freeDeviceMemory(input);
  if (input.needed <= free) return undefined;
  return (
    `Not enough memory on ${input.deviceName} for another chat: a KV cache of ${input.contextSize} tokens needs ${mb(input.needed)}, ` +
    `${mb(free)} is free (${input.openStates} chat${input.openStates === 1 ? "" : "s"} open). Close a chat, lower statefulChat.contextSize, ` +
    `or put fewer layers on the GPU (statefulChat.gpuLayers).`
  );
}
