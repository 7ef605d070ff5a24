// The OTLP receiver on a node http server on 127.0.0.1 (an ephemeral port), for the tests that speak to it over real
// HTTP; `stop` closes both.
import { createServer, type Server } from 'node:http';
import { createOtlpReceiver, type OtlpReceiver, type OtlpReceiverOptions } from './otlp-receiver.ts';

export interface RunningReceiver {
  receiver: OtlpReceiver;
  origin: string;
  stop(): Promise<void>;
}

export async function startReceiver(options: OtlpReceiverOptions = {}): Promise<RunningReceiver> {
  const receiver = createOtlpReceiver(options);
  const server: Server = createServer((req, res) => receiver.handle(req, res, () => res.writeHead(404).end()));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  return {
    receiver,
    origin: `http://127.0.0.1:${address.port}`,
    stop: async () => {
      receiver.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
