import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { REPO_ROOT, VERSIONS, type StackPaths } from './paths';
import { runCommand } from './run-command';
import { spawnService } from './processes';
import { waitFor } from '../util/wait';
import { ensureAptPackages } from './apt';

export interface KafkaPorts {
  broker: number;
  controller: number;
}

const DEPENDENCY_PLUGIN =
  'org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy-dependencies';

/**
 * Resolves the broker's jars (kafka_2.13 and its runtime dependencies plus a log4j binding)
 * from Maven Central into the state folder, via stack/kafka/pom.xml. Cached: a marker file
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
    join(REPO_ROOT, 'stack', 'kafka', 'pom.xml'),
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

function writeKafkaConfig(paths: StackPaths, ports: KafkaPorts): { server: string; log4j: string } {
  mkdirSync(paths.kafkaConfig, { recursive: true });
  const server = join(paths.kafkaConfig, 'server.properties');
  const log4j = join(paths.kafkaConfig, 'log4j.properties');
  // One combined broker+controller (KRaft). Single-replica internal topics; no initial
  // rebalance delay so consumer groups in tests join at once.
  writeFileSync(
    server,
    [
      'process.roles=broker,controller',
      'node.id=1',
      `controller.quorum.voters=1@127.0.0.1:${ports.controller}`,
      `listeners=PLAINTEXT://127.0.0.1:${ports.broker},CONTROLLER://127.0.0.1:${ports.controller}`,
      `advertised.listeners=PLAINTEXT://127.0.0.1:${ports.broker}`,
      'controller.listener.names=CONTROLLER',
      'inter.broker.listener.name=PLAINTEXT',
      'listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT',
      `log.dirs=${paths.kafkaData}`,
      'num.partitions=1',
      'auto.create.topics.enable=false',
      'offsets.topic.replication.factor=1',
      'offsets.topic.num.partitions=10',
      'transaction.state.log.replication.factor=1',
      'transaction.state.log.min.isr=1',
      'group.initial.rebalance.delay.ms=0',
      '',
    ].join('\n'),
  );
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

function javaArgs(paths: StackPaths, log4j: string): string[] {
  return [
    '-Xms256m',
    '-Xmx768m',
    '-XX:+UseG1GC',
    '-Djava.awt.headless=true',
    `-Dlog4j.configuration=file:${log4j}`,
    '-cp',
    join(paths.kafkaLibs, '*'),
  ];
}

/** Formats KRaft storage on first start (a fresh cluster id), then starts the broker. */
export async function startKafka(paths: StackPaths, ports: KafkaPorts): Promise<number> {
  const { server, log4j } = writeKafkaConfig(paths, ports);
  if (!existsSync(join(paths.kafkaData, 'meta.properties'))) {
    // Kafka cluster ids are 16 random bytes, base64url without padding.
    const clusterId = randomBytes(16).toString('base64url');
    await runCommand('java', [
      ...javaArgs(paths, log4j),
      'kafka.tools.StorageTool',
      'format',
      '-t',
      clusterId,
      '-c',
      server,
    ]);
  }
  return spawnService({
    name: 'kafka',
    command: 'java',
    args: [...javaArgs(paths, log4j), 'kafka.Kafka', server],
    logFile: join(paths.logs, 'kafka.log'),
  });
}

/** Waits until the broker answers metadata requests and reports itself as controller-backed. */
export async function waitForKafka(ports: KafkaPorts, timeoutMs: number): Promise<void> {
  const kafka = new Kafka({
    clientId: 'onceflow-stack',
    brokers: [`127.0.0.1:${ports.broker}`],
    logLevel: logLevel.NOTHING,
    retry: { retries: 0 },
    connectionTimeout: 1000,
  });
  await waitFor(
    async () => {
      const admin = kafka.admin();
      await admin.connect();
      try {
        const cluster = await admin.describeCluster();
        return cluster.brokers.length > 0;
      } finally {
        await admin.disconnect();
      }
    },
    { timeoutMs, intervalMs: 500, what: `Kafka on 127.0.0.1:${ports.broker}` },
  );
}
