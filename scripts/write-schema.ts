// Writes the published JSON Schema of the native session file to public/session.schema.json.
import { writeFileSync } from 'node:fs';
import { sessionJsonSchema } from '../src/model/json-schema.ts';

writeFileSync('public/session.schema.json', `${JSON.stringify(sessionJsonSchema(), null, 2)}\n`);
console.log('wrote public/session.schema.json');
