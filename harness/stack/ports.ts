import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** True when nothing listens on 127.0.0.1:port. */
export function isPortFree(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/**
 * The lowest port the kernel hands out as the local port of an outgoing connection
 * (net.ipv4.ip_local_port_range; 32768 on Linux by default). A listener's port picked below it
 * cannot be taken by some client's connect() between our check and the service's bind, which
 * an OS-assigned (ephemeral) port can: a stack whose default port was busy then lost its
 * codec server or a broker at start.
 */
export function ephemeralRangeStart(): number {
  try {
    const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8')
      .trim()
      .split(/\s+/);
    const n = Number(low);
    return Number.isInteger(n) && n > 1024 ? n : 32768;
  } catch {
    return 32768;
  }
}

/** Where pickAnyPort starts looking: well clear of the services' defaults (below 10000). */
const ANY_PORT_FLOOR = 20000;

/**
 * The preferred port when it is free, else a free one below the ephemeral range (the next
 * above the preferred one, or any). `taken` guards against handing out the same port twice
 * within one stack start.
 */
export async function pickPort(preferred: number, taken: Set<number>): Promise<number> {
  const below = ephemeralRangeStart();
  if (preferred < below) {
    for (let port = preferred; port < Math.min(preferred + 100, below); port++) {
      if (!taken.has(port) && (await isPortFree(port))) {
        taken.add(port);
        return port;
      }
    }
  } else if (!taken.has(preferred) && (await isPortFree(preferred))) {
    taken.add(preferred);
    return preferred;
  }
  return pickAnyPort(taken);
}

/**
 * A free port below the ephemeral range, for the listeners nobody configures (Temporal's
 * internal ones, a restarted component's). Starts at a random place so that two stacks
 * starting at once rarely try the same ports.
 */
export async function pickAnyPort(taken: Set<number>): Promise<number> {
  const below = ephemeralRangeStart();
  const span = below - ANY_PORT_FLOOR;
  const first = Math.floor(Math.random() * span);
  for (let i = 0; i < span; i++) {
    const port = ANY_PORT_FLOOR + ((first + i) % span);
    if (!taken.has(port) && (await isPortFree(port))) {
      taken.add(port);
      return port;
    }
  }
  throw new Error(`no free port between ${ANY_PORT_FLOOR} and ${below - 1}`);
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
