// The CLI bundle's stand-in for src/model/schema.ts where the native importer reads it (scripts/build-cli.mjs swaps it
// in; ADR 0018, 0048): zod and the model's schemas (~450 KB of the bundle's ~590, 0.1–0.2 s of every command's start)
// are built apart into dist-cli/schema.cjs and required on the first native session read, so a command on an OTLP file
// or a chat log never loads them.
import { createRequire } from 'node:module';

type Schema = typeof import('../model/schema.ts');

let schema: Schema | undefined;

function loaded(): Schema {
  // The CommonJS build beside the bundle: a synchronous load, as the importers validate synchronously.
  schema ??= createRequire(import.meta.url)('./schema.cjs') as Schema;
  return schema;
}

export const Session: Pick<Schema['Session'], 'safeParse'> = {
  safeParse: (value, params) => loaded().Session.safeParse(value, params),
};
