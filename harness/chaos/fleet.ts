import { startComponent, stopComponent, type Component } from '../pipeline/components';
import { waitFor } from '../../src/util/wait';

export interface FleetMember {
  /** A source entry point run through tsx, or the argv after `node` (productionArgs). */
  entry: string | string[];
  /** Ready when this URL answers (HTTP components); workers have none. */
  readyUrl?: string;
}

/** A component died on its own or a restart failed: the run cannot be judged. */
export class FleetError extends Error {
  override readonly name = 'FleetError';
}

/**
 * The onceflow processes of a chaos run (providers, workers, bridge), by name. Kills are the
 * schedule's; any other exit is unexpected: it is restarted so the run can finish and be
 * judged, and counted, and the run fails on it (a crash under a Kafka or Postgres restart is a
 * finding, not noise).
 */
export class Fleet {
  private readonly running = new Map<string, Component>();
  private readonly killing = new Set<string>();
  readonly unexpectedExits: string[] = [];

  constructor(
    private readonly members: Record<string, FleetMember>,
    private readonly env: NodeJS.ProcessEnv,
    private readonly logs: string,
    private readonly readyTimeoutMs = 180_000,
  ) {}

  async start(name: string): Promise<void> {
    const member = this.members[name];
    if (!member) throw new FleetError(`unknown component ${name}`);
    const component = startComponent(name, member.entry, this.env, this.logs);
    this.running.set(name, component);
    component.child.once('exit', (code, signal) => {
      if (this.killing.has(name) || this.running.get(name) !== component) return;
      this.running.delete(name);
      this.unexpectedExits.push(`${name} exited (${code ?? signal})`);
      process.stderr.write(`[chaos] ${name} exited unexpectedly (${code ?? signal}); restarting\n`);
      this.start(name).catch((err: unknown) =>
        process.stderr.write(`[chaos] restart of ${name} failed: ${(err as Error).message}\n`),
      );
    });
    // Not waitForHttp: a process that dies while starting (Kafka or Postgres is restarting)
    // is respawned by the handler above, so readiness is asked of whichever one is current.
    const { readyUrl } = member;
    if (!readyUrl) return;
    await waitFor(async () => this.running.has(name) && (await fetch(readyUrl)).status < 500, {
      timeoutMs: this.readyTimeoutMs,
      intervalMs: 250,
      what: `${name} at ${readyUrl}`,
    });
  }

  /** The pid of a running member (a restart gives it a new one). */
  pidOf(name: string): number | undefined {
    return this.running.get(name)?.child.pid;
  }

  /** The log file of a running member (its output, appended across restarts). */
  logOf(name: string): string | undefined {
    return this.running.get(name)?.logFile;
  }

  /** SIGKILL: no graceful shutdown, no offset commit, no activity completion. */
  async kill(name: string): Promise<void> {
    const component = this.running.get(name);
    if (!component) return;
    this.killing.add(name);
    try {
      if (component.child.exitCode === null && component.child.signalCode === null) {
        const exited = new Promise((done) => component.child.once('exit', done));
        component.child.kill('SIGKILL');
        await exited;
      }
      this.running.delete(name);
    } finally {
      this.killing.delete(name);
    }
  }

  /**
   * Graceful stop of one member (SIGTERM: a bridge commits and leaves its consumer group at
   * once, which a group reset needs), until `start` brings it back.
   */
  async stop(name: string): Promise<void> {
    const component = this.running.get(name);
    if (!component) return;
    this.killing.add(name);
    try {
      await stopComponent(component);
      this.running.delete(name);
    } finally {
      this.killing.delete(name);
    }
  }

  /**
   * A deploy of one member: a graceful stop (SIGTERM: a worker finishes its tasks), then a
   * start from `entry`, which later restarts of the member use too.
   */
  async redeploy(name: string, entry: string | string[]): Promise<void> {
    const member = this.members[name];
    if (!member) throw new FleetError(`unknown component ${name}`);
    await this.stop(name);
    member.entry = entry;
    await this.start(name);
  }

  /** Graceful stop of every member, in reverse start order. */
  async stopAll(): Promise<void> {
    const all = [...this.running.entries()].reverse();
    for (const [name] of all) this.killing.add(name);
    for (const [, c] of all) await stopComponent(c);
    this.running.clear();
  }
}
