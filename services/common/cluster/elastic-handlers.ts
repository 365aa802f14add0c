/**
 * The gRPC handlers of the Admin API's elastic RPCs (CreatePartitions, the reassignment and
 * decommission RPCs) over an ElasticAdmin: the controller serves them, and brokers serve them by
 * handing them to the controller (ControllerClient). Operations the ElasticAdmin lacks (`tide dev`
 * has no reassigner) answer INVALID_REQUEST.
 */
import { TideError } from '../errors';
import { unary, type RpcEdge } from '../grpc/unary';
import type { AdminHandlers } from '../grpc/generated/tide/v1/Admin';
import type { ElasticAdmin, ReassignmentAdmin } from './elastic-operations';

type ElasticHandlers = Pick<
  AdminHandlers,
  | 'CreatePartitions'
  | 'AlterPartitionReassignments'
  | 'ListPartitionReassignments'
  | 'DecommissionBroker'
  | 'RecommissionBroker'
  | 'DescribeDecommission'
>;

function need<K extends keyof ReassignmentAdmin>(ops: ElasticAdmin, name: K): ReassignmentAdmin[K] {
  const op = ops[name];
  if (!op)
    throw new TideError(
      'INVALID_REQUEST',
      'replica moves and decommissions need a cluster with a controller (not `tide dev`)',
    );
  return op.bind(ops) as ReassignmentAdmin[K];
}

export function elasticHandlers(edge: RpcEdge, ops: ElasticAdmin): ElasticHandlers {
  return {
    CreatePartitions: unary(edge, 'CreatePartitions', async (req) => {
      if (!req.topic) throw new TideError('INVALID_REQUEST', 'topic is required');
      return { topic: await ops.createPartitions(req.topic, req.count, req.validate_only) };
    }),
    AlterPartitionReassignments: unary(edge, 'AlterPartitionReassignments', async (req) =>
      need(ops, 'alterReassignments')(
        req.reassignments.map((r) => ({ topic: r.topic, partition: r.partition, replicas: [...r.replicas] })),
        req.validate_only,
      ),
    ),
    ListPartitionReassignments: unary(edge, 'ListPartitionReassignments', async (req) => ({
      reassignments: await need(ops, 'listReassignments')(req.topics),
    })),
    DecommissionBroker: unary(edge, 'DecommissionBroker', async (req) =>
      need(ops, 'decommissionBroker')(req.broker_id),
    ),
    RecommissionBroker: unary(edge, 'RecommissionBroker', async (req) =>
      need(ops, 'recommissionBroker')(req.broker_id),
    ),
    DescribeDecommission: unary(edge, 'DescribeDecommission', async (req) =>
      need(ops, 'describeDecommission')(req.broker_id),
    ),
  };
}
