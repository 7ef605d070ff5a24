// The native session format as a JSON Schema (draft 2020-12), generated from the zod schema that validates it.
import { z } from 'zod';
import { Session, SESSION_VERSION } from './schema.ts';

export function sessionJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(Session, { target: 'draft-2020-12', io: 'input' }) as Record<string, unknown>;
  return {
    $id: `https://mas-replay-studio.invalid/session.schema.v${SESSION_VERSION}.json`,
    title: `MAS Replay Studio session, version ${SESSION_VERSION}`,
    ...schema,
  };
}
