/**
 * The administration the Admin API exposes, in wire shapes. The controller implements it
 * (services/controller/topic-admin.ts); brokers reach it in process (`tide dev`) or over gRPC
 * (ControllerClient), and serve the Admin API on top of it.
 */
import type { ConfigEntry__Input } from '../grpc/generated/tide/v1/ConfigEntry';
import type { TopicInfo__Input } from '../grpc/generated/tide/v1/TopicInfo';
import type { BrokerInfo__Input } from '../grpc/generated/tide/v1/BrokerInfo';

export interface CreateTopicSpec {
  name: string;
  partitions: number;
  /** 0 = the cluster default. */
  replicationFactor: number;
  configs: Record<string, string>;
  validateOnly: boolean;
}

/** The controller-side operations the Admin API exposes. */
export interface TopicAdmin {
  createTopic(spec: CreateTopicSpec): Promise<TopicInfo__Input>;
  deleteTopic(name: string): Promise<void>;
  listTopics(includeInternal: boolean): Promise<string[]>;
  describeTopic(name: string): Promise<{ topic: TopicInfo__Input; configs: ConfigEntry__Input[] }>;
  describeConfigs(name: string): Promise<ConfigEntry__Input[]>;
  alterConfigs(
    name: string,
    set: Record<string, string>,
    remove: string[],
    validateOnly: boolean,
  ): Promise<ConfigEntry__Input[]>;
}

/**
 * Creation of Tide's own topics (internal: hidden from listings), e.g. `__consumer_offsets`. Only
 * services call it: the controller's internal gRPC API (ControllerClient), or in process in `tide dev`.
 */
export interface InternalTopicCreator {
  createInternalTopic(spec: CreateTopicSpec): Promise<TopicInfo__Input>;
}

/** The cluster as the active controller describes it. */
export interface ClusterDescription {
  clusterId: string;
  controllerId: number;
  brokers: BrokerInfo__Input[];
}
