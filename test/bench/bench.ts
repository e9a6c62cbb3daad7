// `npm run bench`: the CLI's bench on the default model (see src/extension/cli/bench-command.ts).
import { runBench } from "../../src/extension/cli/bench-command";
import { defaultModelFile } from "../support/default-model";

void runBench(["--model", defaultModelFile(), ...process.argv.slice(2)]).then((code) => (process.exitCode = code));
