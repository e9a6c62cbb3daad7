// A child that takes requests and never answers, with or without heartbeats (argv[2] ===
// "heartbeats"): what a hung engine process looks like to the host's watchdog, and a busy one.

process.on("message", () => undefined);
if (process.argv[2] === "heartbeats") {
  let beats = 0;
  setInterval(() => process.connected && process.send?.({ heartbeat: ++beats }), 20);
} else {
  setInterval(() => undefined, 1_000);
}
