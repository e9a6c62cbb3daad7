// Mesa's llvmpipe, a real Vulkan implementation on the CPU (Debian mesa-vulkan-drivers;
// test/run-all.sh installs it): the Vulkan device of the GPU suite and of the e2e Vulkan check.
// ggml skips CPU-type Vulkan devices unless GGML_VK_VISIBLE_DEVICES names them, so both
// variables go to whatever loads llama.cpp (this process, or code-server's environment).
// A missing driver is a failure, never a skip.

import { existsSync } from "node:fs";

const LVP_ICD = "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json";

/** The environment that makes llvmpipe ggml's Vulkan device 0; throws when the driver is missing. */
export function llvmpipeEnvironment(): { readonly VK_ICD_FILENAMES: string; readonly GGML_VK_VISIBLE_DEVICES: string } {
  const icd = process.env.VK_ICD_FILENAMES ?? LVP_ICD;
  if (!existsSync(icd)) throw new Error(`Mesa's llvmpipe Vulkan driver is missing (${icd}): apt-get install -y mesa-vulkan-drivers`);
  return { VK_ICD_FILENAMES: icd, GGML_VK_VISIBLE_DEVICES: process.env.GGML_VK_VISIBLE_DEVICES ?? "0" };
}
