// Settings every code-server test profile shares.

/**
 * Desktop VS Code's save behaviour. code-server is a web build, whose `files.autoSave` default
 * is `afterDelay` (1 s): an applied change would then be written by VS Code itself before the
 * user keeps it, and the Apply tests' "nothing written before Keep" would depend on how fast
 * the diff editor opens. The tests check Apply as a desktop user (default `off`) meets it.
 */
export const DESKTOP_SAVE_SETTINGS = { "files.autoSave": "off" } as const;
