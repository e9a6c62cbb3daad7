// Decides whether a piece of workspace content may be sent to the model at all: binary
// data, invalid UTF-8 and things that look like secrets are never attached.

export type ContentVerdict = { readonly ok: true; readonly text: string } | { readonly ok: false; readonly reason: string };

const SECRET_FILE = /(^|[\\/])(\.env(\..*)?|.*\.(pem|key|p12|pfx|keystore|jks)|id_(rsa|dsa|ecdsa|ed25519)(\.pub)?|\.npmrc|\.pypirc|\.netrc|credentials(\.\w+)?|secrets?(\.\w+)?)$/i;
const SECRET_CONTENT = [
  /-----BEGIN (RSA |EC |DSA |OPENSSH |ENCRYPTED )?PRIVATE KEY-----/,
  /\bAKIA[0-9A-Z]{16}\b/,
  /\bgh[pousr]_[A-Za-z0-9]{36,}\b/,
  /\bsk-[A-Za-z0-9]{32,}\b/,
  /\bxox[baprs]-[A-Za-z0-9-]{10,}\b/,
];

export function looksLikeSecretFile(path: string): boolean {
  return SECRET_FILE.test(path);
}

/** Checks raw bytes from disk: binary (NUL bytes) and invalid UTF-8 are refused. */
export function decodeWorkspaceBytes(bytes: Uint8Array): ContentVerdict {
  const probe = bytes.subarray(0, 8192);
  if (probe.includes(0)) return { ok: false, reason: "binary file" };
  try {
    return checkText(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    return { ok: false, reason: "not valid UTF-8" };
  }
}

/** Checks text (e.g. an editor buffer) for embedded secrets. */
export function checkText(text: string): ContentVerdict {
  if (text.includes("\u0000")) return { ok: false, reason: "binary content" };
  if (SECRET_CONTENT.some((pattern) => pattern.test(text))) return { ok: false, reason: "looks like it contains secrets" };
  return { ok: true, text };
}
