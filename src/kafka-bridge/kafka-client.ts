import { readFileSync } from 'node:fs';
import { Kafka, logLevel, type KafkaConfig, type SASLOptions } from 'kafkajs';
import type { Config } from '../config';

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
    // KafkaJS logs through its own console logger; errors are surfaced by our own logging.
    logLevel: logLevel.ERROR,
  };
}

export function createKafka(kafka: Config['kafka'], clientIdSuffix?: string): Kafka {
  return new Kafka(kafkaClientConfig(kafka, clientIdSuffix));
}
