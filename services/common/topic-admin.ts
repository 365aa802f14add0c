/**
 * The topic administration the Admin API exposes, in wire shapes. The controller implements it
 * (services/controller/admin-wire.ts); brokers reach it in process (`tide dev`) or over gRPC
 * (ControllerClient), and serve the Admin API on top of it.
 */
import type { ConfigEntry__Input } from './grpc/generated/tide/v1/ConfigEntry';
import type { TopicInfo__Input } from './grpc/generated/tide/v1/TopicInfo';

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
