import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT, VERSIONS, type StackPaths } from './paths';
import { runCommand } from './run-command';
import { spawnService } from './processes';
import { waitFor } from '../../src/util/wait';
import { probeKafka } from './kafka-probe';
import { ensureAptPackages } from './apt';
import { brokersOf, replicationOf, type KafkaLayout, type KafkaNode } from './kafka-layout';

const DEPENDENCY_PLUGIN =
  'org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy-dependencies';

/**
 * Resolves the broker's jars (kafka_2.13 and its runtime dependencies plus a log4j binding)
 * from Maven Central into the state folder, via harness/stack/kafka/pom.xml. Cached: a marker file
 * written after a complete copy means nothing is downloaded again.
 */
export async function installKafka(paths: StackPaths, log: (m: string) => void): Promise<string> {
  const marker = join(paths.kafkaLibs, '.complete');
  if (existsSync(marker)) return paths.kafkaLibs;
  await ensureAptPackages({ java: 'default-jre-headless', mvn: 'maven' }, log);
  log(`installing Kafka ${VERSIONS.kafka} jars from Maven Central`);
  rmSync(paths.kafkaLibs, { recursive: true, force: true });
  await runCommand('mvn', [
    '-q',
    '-B',
    '-f',
    join(REPO_ROOT, 'harness', 'stack', 'kafka', 'pom.xml'),
    `-Dkafka.version=${VERSIONS.kafka}`,
    DEPENDENCY_PLUGIN,
    `-DoutputDirectory=${paths.kafkaLibs}`,
    '-DincludeScope=runtime',
  ]);
  const jars = readdirSync(paths.kafkaLibs).filter((f) => f.endsWith('.jar'));
  if (!jars.includes(`kafka_2.13-${VERSIONS.kafka}.jar`)) {
    throw new Error(
      `Kafka install incomplete: kafka_2.13-${VERSIONS.kafka}.jar missing in ${paths.kafkaLibs}`,
    );
  }
  writeFileSync(marker, `${jars.length} jars\n`);
  return paths.kafkaLibs;
}

/** Where one Kafka process keeps its storage and configuration, and where it logs. */
interface NodeDirs {
  data: string;
  config: string;
  log: string;
}

/**
 * The single broker keeps today's folders (`kafka/data`, `kafka/config`, `logs/kafka.log`);
 * each process of the three-broker cluster has its own under `kafka/cluster-3/<name>/`.
 */
function nodeDirs(paths: StackPaths, layout: KafkaLayout, node: KafkaNode): NodeDirs {
  const log = join(paths.logs, `${node.name}.log`);
  if (brokersOf(layout).length === 1) {
    return { data: paths.kafkaData, config: paths.kafkaConfig, log };
  }
  const dir = join(paths.kafkaCluster, node.name);
  return { data: join(dir, 'data'), config: join(dir, 'config'), log };
}

function hostPort(port: number): string {
  return `127.0.0.1:${port}`;
}

function serverProperties(layout: KafkaLayout, node: KafkaNode, dataDir: string): string {
  const voters = layout.nodes
    .filter((n) => n.controllerPort !== undefined)
    .map((n) => `${n.nodeId}@${hostPort(n.controllerPort!)}`)
    .join(',');
  const listeners = [
    ...(node.brokerPort !== undefined ? [`PLAINTEXT://${hostPort(node.brokerPort)}`] : []),
    ...(node.controllerPort !== undefined ? [`CONTROLLER://${hostPort(node.controllerPort)}`] : []),
  ];
  const replicas = replicationOf(layout);
  return [
    `process.roles=${node.roles}`,
    `node.id=${node.nodeId}`,
    `controller.quorum.voters=${voters}`,
    `listeners=${listeners.join(',')}`,
    ...(node.brokerPort !== undefined
      ? [
          `advertised.listeners=PLAINTEXT://${hostPort(node.brokerPort)}`,
          'inter.broker.listener.name=PLAINTEXT',
        ]
      : []),
    'controller.listener.names=CONTROLLER',
    'listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT',
    `log.dirs=${dataDir}`,
    'num.partitions=1',
    'auto.create.topics.enable=false',
    // The broker's defaults follow the cluster, so a topic created without explicit settings
    // (and Kafka's own offsets and transaction topics) is as durable as onceflow's.
    `default.replication.factor=${replicas.replicationFactor}`,
    `min.insync.replicas=${replicas.minInsyncReplicas}`,
    `offsets.topic.replication.factor=${replicas.replicationFactor}`,
    'offsets.topic.num.partitions=10',
    `transaction.state.log.replication.factor=${replicas.replicationFactor}`,
    `transaction.state.log.min.isr=${replicas.minInsyncReplicas}`,
    // No initial rebalance delay, so consumer groups in tests join at once.
    'group.initial.rebalance.delay.ms=0',
    '',
  ].join('\n');
}

function writeNodeConfig(
  layout: KafkaLayout,
  node: KafkaNode,
  dirs: NodeDirs,
): { server: string; log4j: string } {
  mkdirSync(dirs.config, { recursive: true });
  const server = join(dirs.config, 'server.properties');
  const log4j = join(dirs.config, 'log4j.properties');
  writeFileSync(server, serverProperties(layout, node, dirs.data));
  writeFileSync(
    log4j,
    [
      'log4j.rootLogger=WARN, stdout',
      'log4j.logger.kafka.server.KafkaRaftServer=INFO',
      'log4j.appender.stdout=org.apache.log4j.ConsoleAppender',
      'log4j.appender.stdout.layout=org.apache.log4j.PatternLayout',
      'log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n',
      '',
    ].join('\n'),
  );
  return { server, log4j };
}

/**
 * Heap per process. The single broker keeps what it always had; the cluster's four JVMs share
 * a 2-core box with everything else, and the controller only holds cluster metadata.
 */
function heapOf(layout: KafkaLayout, node: KafkaNode): string[] {
  if (brokersOf(layout).length === 1) return ['-Xms256m', '-Xmx768m'];
  return node.roles === 'controller' ? ['-Xms64m', '-Xmx192m'] : ['-Xms128m', '-Xmx512m'];
}

function javaArgs(paths: StackPaths, heap: string[], log4j: string): string[] {
  return [
    ...heap,
    '-XX:+UseG1GC',
    '-Djava.awt.headless=true',
    `-Dlog4j.configuration=file:${log4j}`,
    '-cp',
    join(paths.kafkaLibs, '*'),
  ];
}

/**
 * A new Kafka cluster id: 16 random bytes, base64url without padding, as Kafka's
 * `Uuid.randomUuid()` makes them, and like it never starting with '-' (1 in 32 draws would):
 * the storage tool's argument parser takes such an id for an option and refuses to format.
 */
export function newClusterId(random: (size: number) => Buffer = randomBytes): string {
  for (;;) {
    const id = random(16).toString('base64url');
    if (!id.startsWith('-')) return id;
  }
}

/**
 * The id every process of one cluster is formatted with. The single broker gets a fresh one
 * at its only format; the cluster's is kept in a file, so a process whose storage is gone
 * can be formatted into the same cluster again.
 */
function clusterIdOf(paths: StackPaths, layout: KafkaLayout): string {
  const fresh = () => newClusterId();
  if (brokersOf(layout).length === 1) return fresh();
  const file = join(paths.kafkaCluster, 'cluster-id');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(paths.kafkaCluster, { recursive: true });
  const id = fresh();
  writeFileSync(file, `${id}\n`);
  return id;
}

/** Formats the process's KRaft storage on its first start, then starts it; returns its pid. */
export async function startKafkaNode(
  paths: StackPaths,
  layout: KafkaLayout,
  node: KafkaNode,
): Promise<number> {
  const dirs = nodeDirs(paths, layout, node);
  const { server, log4j } = writeNodeConfig(layout, node, dirs);
  const java = javaArgs(paths, heapOf(layout, node), log4j);
  if (!existsSync(join(dirs.data, 'meta.properties'))) {
    await runCommand('java', [
      ...java,
      'kafka.tools.StorageTool',
      'format',
      // One argument, so that no id (a stored one included) can read as an option.
      `--cluster-id=${clusterIdOf(paths, layout)}`,
      '-c',
      server,
    ]);
  }
  return spawnService({
    name: node.name,
    command: 'java',
    args: [...java, 'kafka.Kafka', server],
    logFile: dirs.log,
  });
}

/** The bootstrap list of the layout's brokers, as KAFKA_BROKERS takes it. */
export function bootstrapOf(layout: KafkaLayout): string {
  return brokersOf(layout)
    .map((b) => hostPort(b.brokerPort!))
    .join(',');
}

/**
 * The cluster ID a process's storage was formatted with (`cluster.id` in its meta.properties),
 * or undefined before its first start.
 */
export function formattedClusterId(
  paths: StackPaths,
  layout: KafkaLayout,
  node: KafkaNode,
): string | undefined {
  const file = join(nodeDirs(paths, layout, node).data, 'meta.properties');
  if (!existsSync(file)) return undefined;
  return /^cluster\.id=(.+)$/m.exec(readFileSync(file, 'utf8'))?.[1]?.trim();
}

/**
 * Waits until `brokers` (default: every broker of the layout) are registered with the
 * controller, asking each of them, so every one of them answers metadata requests. Topics do
 * not matter here (registeredBrokers): a leaderless partition elsewhere is not a broker down.
 * With `clusterId`, an answer from another cluster (another stack's Kafka on a port ours left
 * free while its broker was down) is not ours coming up.
 */
export async function waitForKafka(
  layout: KafkaLayout,
  timeoutMs: number,
  brokers: KafkaNode[] = brokersOf(layout),
  clusterId?: string,
): Promise<void> {
  await waitFor(
    async () => {
      for (const broker of brokers) {
        const probe = await probeKafka('127.0.0.1', broker.brokerPort!);
        // Not yet ours: reported as the wait's last error if it never is.
        if (clusterId !== undefined && probe.clusterId !== clusterId)
          throw new Error(
            `${hostPort(broker.brokerPort!)} answers for cluster ${probe.clusterId}, not ours (${clusterId})`,
          );
        const ids = new Set(probe.brokerIds);
        if (!brokers.every((b) => ids.has(b.nodeId))) return false;
      }
      return true;
    },
    {
      timeoutMs,
      intervalMs: 500,
      what: `Kafka on ${brokers.map((b) => hostPort(b.brokerPort!)).join(', ')}`,
    },
  );
}
