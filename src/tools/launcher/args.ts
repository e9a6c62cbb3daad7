// Command line of `npm start -- [--folder PATH] [--port N] [--skip-package]`.

import { resolve } from "node:path";

export interface LauncherArgs {
  /** Folder to open in the workbench; defaults to the repo. */
  readonly folder: string | undefined;
  /** 0: pick a free port. */
  readonly port: number;
  /** Reuse the last VSIX instead of packaging again (faster restarts). */
  readonly skipPackage: boolean;
}

export class UsageError extends Error {
  constructor(message: string) {
    super(`${message}\nUsage: npm start -- [--folder PATH] [--port N] [--skip-package]`);
    this.name = "UsageError";
  }
}

export function parseLauncherArgs(argv: readonly string[]): LauncherArgs {
  let folder: string | undefined;
  let port = 0;
  let skipPackage = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const [flag, inline] = arg.includes("=") ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)] : [arg, undefined];
    const value = (): string => {
      const v = inline ?? argv[++i];
      if (v === undefined) throw new UsageError(`${flag} needs a value`);
      return v;
    };
    switch (flag) {
      case "--folder":
        folder = resolve(value());
        break;
      case "--port": {
        const raw = value();
        port = Number(raw);
        if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`bad port: ${raw}`);
        break;
      }
      case "--skip-package":
        skipPackage = true;
        break;
      default:
        throw new UsageError(`unknown argument: ${arg}`);
    }
  }
  return { folder, port, skipPackage };
}
