/**
 * What `tide dev` is configured with: every broker key, plus the group coordinator's keys a
 * single-node user may want to change (the rest of the coordinator's config is fixed for one node).
 */
import { BROKER_CONFIG_SCHEMA } from '../../services/broker';
import type { ConfigOf } from '../../services/common/config';
import { COORDINATOR_CONFIG_SCHEMA } from '../../services/group-coordinator';

export const DEV_CONFIG_SCHEMA = {
  ...BROKER_CONFIG_SCHEMA,
  offsetsRetentionMs: COORDINATOR_CONFIG_SCHEMA.offsetsRetentionMs,
  offsetsRetentionCheckIntervalMs: COORDINATOR_CONFIG_SCHEMA.offsetsRetentionCheckIntervalMs,
};

export type DevConfig = ConfigOf<typeof DEV_CONFIG_SCHEMA>;
