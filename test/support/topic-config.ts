import { ConfigResourceTypes, ConfigSource, type Kafka } from 'kafkajs';

/**
 * Sets one config override of a topic (or removes it, with `undefined`), keeping the topic's
 * other overrides: Kafka's (non-incremental) AlterConfigs replaces the whole set. What an
 * operator does with kafka-configs.sh, for tests that make a topic misbehave.
 */
export async function setTopicConfig(
  kafka: Kafka,
  topic: string,
  name: string,
  value: string | undefined,
): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const { resources } = await admin.describeConfigs({
      includeSynonyms: false,
      resources: [{ type: ConfigResourceTypes.TOPIC, name: topic }],
    });
    const entries = new Map(
      resources[0]!.configEntries
        .filter((e) => e.configSource === ConfigSource.TOPIC_CONFIG)
        .map((e) => [e.configName, e.configValue]),
    );
    if (value === undefined) entries.delete(name);
    else entries.set(name, value);
    await admin.alterConfigs({
      validateOnly: false,
      resources: [
        {
          type: ConfigResourceTypes.TOPIC,
          name: topic,
          configEntries: [...entries].map(([n, v]) => ({ name: n, value: v })),
        },
      ],
    });
  } finally {
    await admin.disconnect();
  }
}
