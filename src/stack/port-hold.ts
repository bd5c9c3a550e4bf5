import { createServer, type Server, type Socket } from 'node:net';

/** A port kept listening while its service is down; release() frees it for the service. */
export interface PortHold {
  port: number;
  release(): Promise<void>;
}

/**
 * Listens on 127.0.0.1:port and closes every connection at once, as a dead service's port
 * refuses it, so that nothing else on the machine takes the port while our service is down
 * for a restart: on a shared machine another stack's start picks a default port when it is
 * free (pickPort), and a killed broker's is then another cluster's, which our clients would
 * reach and our broker could not bind again. Resolves undefined when the port is taken already.
 */
export function holdPort(port: number): Promise<PortHold | undefined> {
  return new Promise((resolve) => {
    const sockets = new Set<Socket>();
    const server: Server = createServer((socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.destroy();
    });
    server.once('error', () => resolve(undefined));
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () =>
      resolve({
        port,
        release: () =>
          new Promise<void>((done) => {
            for (const s of sockets) s.destroy();
            server.close(() => done());
          }),
      }),
    );
  });
}
