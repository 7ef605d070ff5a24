// Reading the clarifier's answer `{type, to_agent, question}`. Models spell types out ("Data Gap"), name the agent
// instead of its side, wrap the JSON in fences or prose; each repair is noted. An answer that cannot be read at all is
// reported as malformed and the message passes unchanged (the caller decides).
import { readJsonAnswer } from '../../llm/json-answer.ts';
import { isClarifierType, TYPE_INFO, type Addressee, type ClarifierType } from './taxonomy.ts';

export interface ClarifierDecision {
  type: ClarifierType;
  toAgent: Addressee | null;
  question: string;
}

export interface ParsedClarifier {
  decision?: ClarifierDecision;
  repairs: string[];
  problem?: string;
}

const TYPE_BY_KEY = new Map<string, ClarifierType>();
for (const info of Object.values(TYPE_INFO)) {
  TYPE_BY_KEY.set(info.code.toLowerCase(), info.code);
  TYPE_BY_KEY.set(info.name.toLowerCase().replace(/[^a-z]/g, ''), info.code);
}
for (const [alias, code] of [
  ['none', 'NONE'],
  ['no', 'NONE'],
  ['noask', 'NONE'],
  ['pass', 'NONE'],
  ['null', 'NONE'],
] as const) {
  TYPE_BY_KEY.set(alias, code);
}

function readType(raw: unknown): ClarifierType | undefined {
  if (raw === null) return 'NONE';
  if (typeof raw !== 'string') return undefined;
  if (isClarifierType(raw)) return raw;
  const key = raw.toLowerCase().replace(/[^a-z]/g, '');
  return TYPE_BY_KEY.get(key);
}

function readAddressee(raw: unknown, names: { sender: string; receiver: string }): Addressee | null | undefined {
  if (raw === null || raw === undefined) return null;
  if (typeof raw !== 'string') return undefined;
  const v = raw.trim().toLowerCase();
  if (v === '' || v === 'null' || v === 'none') return null;
  if (v === 'sender' || v === 'upstream' || v === 'source' || v === 'u') return 'sender';
  if (v === 'receiver' || v === 'recipient' || v === 'downstream' || v === 'target' || v === 'v') return 'receiver';
  if (v === names.sender.toLowerCase()) return 'sender';
  if (v === names.receiver.toLowerCase()) return 'receiver';
  return undefined;
}

export function parseClarifierAnswer(answer: string, names: { sender: string; receiver: string }): ParsedClarifier {
  const read = readJsonAnswer(answer);
  const repairs = read.repairs;
  if (!read.ok) return { repairs, problem: read.problem };
  const obj = read.value;
  const rawType = obj.type ?? obj.error_type ?? obj.label;
  const type = readType(rawType);
  if (type === undefined) return { repairs, problem: rawType === undefined ? 'the answer has no type' : `unknown type ${JSON.stringify(rawType)}` };
  if (rawType !== type) repairs.push(`read type ${JSON.stringify(rawType)} as ${type}`);
  const rawTo = obj.to_agent ?? obj.toAgent ?? obj.addressee;
  const question = typeof obj.question === 'string' ? obj.question.trim() : '';
  if (type === 'NONE') {
    if (question !== '') repairs.push('dropped the question of a NONE answer');
    if (rawTo !== null && rawTo !== undefined && rawTo !== '') repairs.push('dropped the addressee of a NONE answer');
    return { decision: { type, toAgent: null, question: '' }, repairs };
  }
  if (question === '') return { repairs, problem: `type ${type} but no question to ask` };
  let toAgent = readAddressee(rawTo, names);
  if (toAgent === undefined) return { repairs, problem: `unknown addressee ${JSON.stringify(rawTo)} (expected sender or receiver)` };
  if (typeof rawTo === 'string' && rawTo.trim().toLowerCase() !== toAgent && toAgent !== null) repairs.push(`read addressee ${JSON.stringify(rawTo)} as ${toAgent}`);
  if (toAgent === null) {
    toAgent = TYPE_INFO[type].usualAddressee ?? 'sender';
    repairs.push(`no addressee given; used the usual one for ${type} (${toAgent})`);
  }
  return { decision: { type, toAgent, question }, repairs };
}
