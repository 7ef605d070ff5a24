// The native session file's name and versions (SPEC §2), apart from its zod schema (./schema.ts re-exports them): a
// module that writes or recognises a session needs these, not zod (the CLI bundle loads zod only to read one).
export const SESSION_FORMAT = 'mas-replay-session';
/** 2: runner semantics typed (`Step.runner`, `Run.live`, ADR 0014); version 1 files are read and migrated. */
export const SESSION_VERSION = 2;
export const SESSION_VERSIONS_READ = [1, 2] as const;
