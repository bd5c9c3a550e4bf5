import { readFileSync } from 'node:fs';
import { Kafka, logLevel, type KafkaConfig, type LogEntry, type SASLOptions } from 'kafkajs';
import type { Config } from '../config';
import type { Logger } from '../logger';
import { registerCodecs } from './codecs';
import { installHeaderDecoderPatch } from './kafka-decoder-patch';
import { installFetchPatch } from './kafka-fetch-patch';
import { installRequestQueuePatch } from './kafka-request-queue-patch';

/** KafkaJS settings from config: brokers, client id, SSL (optionally with a CA) and SASL. */
export function kafkaClientConfig(kafka: Config['kafka'], clientIdSuffix?: string): KafkaConfig {
  const sasl: SASLOptions | undefined = kafka.sasl
    ? ({
        mechanism: kafka.sasl.mechanism,
        username: kafka.sasl.username,
        password: kafka.sasl.password,
      } as SASLOptions)
    : undefined;
  return {
    clientId: clientIdSuffix ? `${kafka.clientId}-${clientIdSuffix}` : kafka.clientId,
    brokers: kafka.brokers,
    ssl: kafka.ssl
      ? kafka.ssl.caPath
        ? { ca: [readFileSync(kafka.ssl.caPath, 'utf8')] }
        : true
      : undefined,
    sasl,
    // Without a logger: errors only, on KafkaJS's console logger.
    logLevel: logLevel.ERROR,
  };
}

/**
 * KafkaJS log entries as structured lines of our own logger. KafkaJS reports expected group
 * events (a rebalance in progress, a member re-joining) as errors; they are logged at warn,
 * so alerts on error logs mean something.
 */
function logCreatorFor(log: Logger): KafkaConfig['logCreator'] {
  return () =>
    ({ level, log: entry }: LogEntry) => {
      const { message, ...extra } = entry;
      const target = log.child({ component: 'kafkajs' });
      if (level === logLevel.ERROR || level === logLevel.WARN) target.warn(extra, message);
      else if (level === logLevel.INFO) target.info(extra, message);
      else target.debug(extra, message);
    };
}

/**
 * A KafkaJS client from config; with `log`, its logs join the process's structured logs.
 * Every client reads every compression codec, decodes headers prototype-safely, reading
 * read_committed never delivers a record of an aborted transaction and knows the last stable
 * offset (kafka-fetch-patch.ts), and its connections do not poll themselves every millisecond
 * (kafka-request-queue-patch.ts); all four are process-wide KafkaJS state, installed here
 * once, before any connection.
 */
export function createKafka(kafka: Config['kafka'], clientIdSuffix?: string, log?: Logger): Kafka {
  registerCodecs();
  installHeaderDecoderPatch();
  installFetchPatch();
  installRequestQueuePatch();
  const config = kafkaClientConfig(kafka, clientIdSuffix);
  return new Kafka(
    log ? { ...config, logLevel: logLevel.WARN, logCreator: logCreatorFor(log) } : config,
  );
}
