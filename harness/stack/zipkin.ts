import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { VERSIONS, type StackPaths } from './paths';
import { ensureAptPackages } from './apt';
import { spawnService } from './processes';
import { runCommand } from './run-command';
import { waitFor } from '../../src/util/wait';

/**
 * The local stack's trace viewer: Zipkin's server (io.zipkin:zipkin-server, `exec` classifier:
 * one self-contained jar) from Maven Central, on the Java the Kafka jars already need, spans
 * kept in memory. onceflow's processes export to it with OpenTelemetry's Zipkin exporter
 * (OTEL_TRACES_EXPORTER=zipkin): the server's own intake is Zipkin's v2 JSON, and taking OTLP
 * would need a separate collector module loaded into it; anything that speaks OTLP is reached
 * with OTEL_TRACES_EXPORTER=otlp instead (docs/tracing.md).
 */

/** The jar, downloaded once (Maven verifies its checksum) and cached in the state folder. */
export async function installZipkin(paths: StackPaths, log: (m: string) => void): Promise<string> {
  const jar = join(paths.cache, `zipkin-server-${VERSIONS.zipkin}-exec.jar`);
  if (existsSync(jar)) return jar;
  await ensureAptPackages({ java: 'default-jre-headless', mvn: 'maven' }, log);
  log(`installing Zipkin ${VERSIONS.zipkin} from Maven Central`);
  const dir = join(paths.cache, `zipkin-${process.pid}.tmp`);
  mkdirSync(dir, { recursive: true });
  try {
    await runCommand('mvn', [
      '-q',
      '-B',
      'org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy',
      `-Dartifact=io.zipkin:zipkin-server:${VERSIONS.zipkin}:jar:exec`,
      `-DoutputDirectory=${dir}`,
    ]);
    renameSync(join(dir, `zipkin-server-${VERSIONS.zipkin}-exec.jar`), jar);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return jar;
}

/** Where a running Zipkin is reached, in the settings onceflow's processes read. */
export function zipkinSettings(port: number): {
  ONCEFLOW_TRACING: string;
  OTEL_TRACES_EXPORTER: string;
  OTEL_EXPORTER_ZIPKIN_ENDPOINT: string;
  ONCEFLOW_TRACE_URL: string;
} {
  const base = `http://127.0.0.1:${port}`;
  return {
    ONCEFLOW_TRACING: 'on',
    OTEL_TRACES_EXPORTER: 'zipkin',
    OTEL_EXPORTER_ZIPKIN_ENDPOINT: `${base}/api/v2/spans`,
    ONCEFLOW_TRACE_URL: `${base}/zipkin/traces/{traceId}`,
  };
}

/**
 * Starts Zipkin on loopback with in-memory storage (a dev viewer: traces go with it), its heap
 * bounded so it fits beside the broker on a small machine. Returns the pid.
 */
export function startZipkin(
  paths: StackPaths,
  jar: string,
  port: number,
  logName = 'zipkin',
): number {
  return spawnService({
    name: logName,
    command: 'java',
    args: ['-Xms64m', '-Xmx256m', '-XX:+UseSerialGC', '-jar', jar],
    logFile: join(paths.logs, `${logName}.log`),
    env: {
      ...process.env,
      // Loopback only: Armeria's port list, given whole (a partial entry loses the port).
      ARMERIA_PORTS_0_PORT: String(port),
      ARMERIA_PORTS_0_IP: '127.0.0.1',
      ARMERIA_PORTS_0_PROTOCOLS_0: 'http',
      STORAGE_TYPE: 'mem',
      MEM_MAX_SPANS: '200000',
      // Only the HTTP intake and the UI: no Kafka/RabbitMQ/Scribe collectors, no self-tracing.
      COLLECTOR_KAFKA_ENABLED: 'false',
      COLLECTOR_RABBITMQ_ENABLED: 'false',
      SELF_TRACING_ENABLED: 'false',
    },
  });
}

/** Waits until Zipkin reports itself up. */
export async function waitForZipkin(port: number, timeoutMs: number): Promise<void> {
  await waitFor(
    async () => {
      const res = await fetch(`http://127.0.0.1:${port}/health`);
      return res.status === 200;
    },
    { timeoutMs, intervalMs: 500, what: `Zipkin on 127.0.0.1:${port}` },
  );
}
