// For tests: self-contained trace text, multi-member gzip and gzip bombs made on the fly (never stored).
import { constants, createGzip, gzipSync } from 'node:zlib';

/** A message-bus JSON Lines file of `n` runs (one run per line, `Question <first>?` onward), self-contained. */
export function busLines(n: number, first = 0): string[] {
  const lines: string[] = [];
  for (let i = first; i < first + n; i++) {
    const messages = [
      { id: `m${i}a`, timestamp: '2025-08-27T15:00:00.000Z', sender: 'agent_1', type: 'message', content: `Run ${i}: I think it is ${i}`, recipients: ['@all'], thread_id: 'main', reply_to: null },
      { id: `m${i}b`, timestamp: '2025-08-27T15:00:01.000Z', sender: 'agent_2', type: 'message', content: 'Check it', recipients: ['agent_1'], thread_id: 'main', reply_to: `m${i}a` },
    ];
    const line = { question: `Question ${i}?`, original_question: `Question ${i}?`, answer: String(i), true_answer: String(i), source: 'math', model_id: 'm', agent_action_type: 'decentralized-consensus', start_time: 1756306800, end_time: '2025-08-27 17:00:03', duration: 3, messages };
    lines.push(JSON.stringify(line));
  }
  return lines;
}

/** The lines in `members` gzip members, concatenated (as `cat a.gz b.gz`, or a log rotated by appending). */
export function multiMemberGzip(lines: string[], members: number): Buffer {
  const per = Math.ceil(lines.length / members);
  const parts: Buffer[] = [];
  for (let m = 0; m < members; m++) parts.push(gzipSync(lines.slice(m * per, (m + 1) * per).map((l) => `${l}\n`).join('')));
  return Buffer.concat(parts);
}

/** `bytes` of `fill`, gzip-compressed as a stream (never held whole): 1 GiB becomes about 1 MB. */
export async function gzipBomb(bytes: number, fill = 0x20): Promise<Buffer> {
  const gz = createGzip({ level: 9, strategy: constants.Z_RLE });
  const out: Buffer[] = [];
  gz.on('data', (c: Buffer) => out.push(c));
  const done = new Promise((resolve) => gz.on('end', resolve));
  const block = Buffer.alloc(1 << 20, fill);
  block[0] = 0x7b; // `{`: looks like JSON, so only the limit can stop it
  for (let written = 0; written < bytes; written += block.length) {
    if (!gz.write(written + block.length <= bytes ? block : block.subarray(0, bytes - written))) await new Promise((r) => gz.once('drain', r));
  }
  gz.end();
  await done;
  return Buffer.concat(out);
}
