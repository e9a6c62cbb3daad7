// A child that stands for an engine process whose native call never returns (a GPU driver
// hang): its event loop runs, so it sends heartbeats every 20 ms, but the model's work stops.
// It answers a load (unless the model path is "hang") and createState; a generateReply
// streams the number of tokens in argv[2] (default 2), then nothing; evaluate,
// evaluateTopK and the snapshot operations are never answered. With argv[3] "answers" it
// is the healthy process after a restart instead: evaluate is answered.

import type { LoadedInfo, ToHost } from "../../src/extension/engine-host/protocol";

const tokensBeforeHang = Number(process.argv[2] ?? "2");
const answersEvaluate = process.argv[3] === "answers";
let length = 0;

function send(message: ToHost): void {
  if (process.connected) process.send?.(message);
}

let beats = 0;
setInterval(() => send({ heartbeat: ++beats }), 20);

process.on("message", (raw: unknown) => {
  const message = raw as { id?: number; request?: { op?: string; load?: { modelPath?: string }; tokens?: number[] } };
  const id = message.id;
  if (id === undefined) return; // a cancel: the hung call cannot stop either
  switch (message.request?.op) {
    case "load": {
      if (message.request.load?.modelPath === "hang") return;
      const info: LoadedInfo = { backend: "llamacpp", modelPath: "test.gguf", modelName: "test", capacity: 4096, details: "test double", chatTemplate: "" };
      send({ id, ok: true, value: info });
      return;
    }
    case "createState":
      send({ id, ok: true, value: { state: 1, capacity: 4096 } });
      return;
    case "evaluate":
      if (!answersEvaluate) return;
      length += message.request.tokens?.length ?? 0;
      send({ id, ok: true, value: { length } });
      return;
    case "generateReply":
      for (let i = 0; i < tokensBeforeHang; i++) send({ id, token: 100 + i });
      return;
    default:
      return; // the native call that never returns
  }
});

// The host went away: leave (a real engine process frees its model and leaves too).
process.on("disconnect", () => process.exit(0));
