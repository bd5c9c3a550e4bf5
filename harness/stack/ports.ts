import { createServer } from 'node:net';

/** True when nothing listens on 127.0.0.1:port. */
export function isPortFree(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

async function ephemeralPort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen({ port: 0, host }, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * The preferred port when it is free, else a free one chosen by the OS. `taken` guards
 * against handing out the same ephemeral port twice within one stack start.
 */
export async function pickPort(preferred: number, taken: Set<number>): Promise<number> {
  if (!taken.has(preferred) && (await isPortFree(preferred))) {
    taken.add(preferred);
    return preferred;
  }
  return pickAnyPort(taken);
}

/** A free port chosen by the OS, for the listeners nobody configures (Temporal's internal ones). */
export async function pickAnyPort(taken: Set<number>): Promise<number> {
  for (;;) {
    const port = await ephemeralPort();
    if (!taken.has(port)) {
      taken.add(port);
      return port;
    }
  }
}

/**
 * The preferred port when free, else the next free one above it, all below `below`: for
 * listeners whose port is stored where ephemeral ports (32768 and up on Linux) do not fit,
 * such as Temporal's membership ports (a SMALLINT column of its cluster_membership table).
 */
export async function pickPortBelow(
  preferred: number,
  below: number,
  taken: Set<number>,
): Promise<number> {
  for (let port = preferred; port < below; port++) {
    if (!taken.has(port) && (await isPortFree(port))) {
      taken.add(port);
      return port;
    }
  }
  throw new Error(`no free port between ${preferred} and ${below - 1}`);
}
