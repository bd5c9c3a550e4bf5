import type { Replication } from '../../src/kafka/topics';

/**
 * A Kafka process's name in stack.json and of its log file: `kafka` for the single broker;
 * `kafka-controller`, `kafka-1`, `kafka-2`, `kafka-3` in the three-broker cluster.
 */
export type KafkaProcessName = 'kafka' | 'kafka-controller' | 'kafka-1' | 'kafka-2' | 'kafka-3';

/** One Kafka process of the stack. */
export interface KafkaNode {
  name: KafkaProcessName;
  /** KRaft node.id; the cluster's brokers are 1, 2, 3. */
  nodeId: number;
  roles: 'broker,controller' | 'broker' | 'controller';
  /** The PLAINTEXT listener clients use (brokers only). */
  brokerPort?: number;
  /** The CONTROLLER listener of the KRaft quorum (controllers only). */
  controllerPort?: number;
}

/** The stack's Kafka processes, recorded in stack.json so restarts reuse their ports. */
export interface KafkaLayout {
  nodes: KafkaNode[];
}

/**
 * One combined broker+controller: what the stack has always started.
 */
export function singleBrokerLayout(ports: { broker: number; controller: number }): KafkaLayout {
  return {
    nodes: [
      {
        name: 'kafka',
        nodeId: 1,
        roles: 'broker,controller',
        brokerPort: ports.broker,
        controllerPort: ports.controller,
      },
    ],
  };
}

/**
 * Three brokers and one dedicated KRaft controller (four JVMs). Not three combined nodes:
 * with the quorum on the brokers, killing two brokers also loses the controller majority, the
 * ISR can no longer shrink, and writes time out instead of failing with
 * NOT_ENOUGH_REPLICAS as they do in a production cluster with its own controllers. The faults
 * this topology exists for are broker faults; the controller is never the one killed.
 */
export function threeBrokerLayout(ports: { controller: number; brokers: number[] }): KafkaLayout {
  if (ports.brokers.length !== 3) throw new Error('three broker ports are needed');
  return {
    nodes: [
      {
        name: 'kafka-controller',
        nodeId: 100,
        roles: 'controller',
        controllerPort: ports.controller,
      },
      ...ports.brokers.map((brokerPort, i) => ({
        name: `kafka-${i + 1}` as KafkaProcessName,
        nodeId: i + 1,
        roles: 'broker' as const,
        brokerPort,
      })),
    ],
  };
}

/** The processes that serve clients, in node id order. */
export function brokersOf(layout: KafkaLayout): KafkaNode[] {
  return layout.nodes.filter((n) => n.brokerPort !== undefined);
}

/**
 * The brokers' default replication, which topics created without one follow
 * (src/kafka/topics.ts, clusterReplication): three copies of which two must confirm a write
 * on the cluster, so one broker may die without losing a committed event or refusing new
 * ones; one copy on the single broker.
 */
export function replicationOf(layout: KafkaLayout): Replication {
  return brokersOf(layout).length >= 3
    ? { replicationFactor: 3, minInsyncReplicas: 2 }
    : { replicationFactor: 1, minInsyncReplicas: 1 };
}

/** The broker with this node id; throws naming the ids there are. */
export function brokerById(layout: KafkaLayout, nodeId: number): KafkaNode {
  const broker = brokersOf(layout).find((b) => b.nodeId === nodeId);
  if (!broker) {
    const ids = brokersOf(layout).map((b) => b.nodeId);
    throw new RangeError(`no Kafka broker ${nodeId} in this stack (brokers: ${ids.join(', ')})`);
  }
  return broker;
}
