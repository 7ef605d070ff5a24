// Standalone test server for e2e runs: `tsx test-server/main.ts --port N` prints its URL and serves until killed.
import { startTestServer } from './server.ts';

const i = process.argv.indexOf('--port');
const port = i === -1 ? 0 : Number(process.argv[i + 1]);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  process.stderr.write(`error: usage: --port must be a port number, got ${JSON.stringify(process.argv[i + 1])}\n`);
  process.exit(2);
}
const server = await startTestServer({ port });
process.stdout.write(`${server.url}\n`);
const stop = () => void server.close().then(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
