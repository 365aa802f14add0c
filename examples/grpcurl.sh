#!/bin/sh
# Tide with grpcurl (https://github.com/fullstorydev/grpcurl), through server reflection: no .proto
# files needed. Against `npx tide dev`, or a cluster through `kubectl port-forward svc/tide 9092`.
# Bytes fields (keys, values) are base64 in grpcurl's JSON: "aGVsbG8=" is "hello".
set -eu
ADDR="${1:-127.0.0.1:9092}"

# What the broker serves, and one method's request type.
grpcurl -plaintext "$ADDR" list
grpcurl -plaintext "$ADDR" describe tide.v1.ProduceRequest

# Health, as Kubernetes' gRPC probes ask it.
grpcurl -plaintext -d '{"service":"tide.v1.Broker"}' "$ADDR" grpc.health.v1.Health/Check

# Cluster and topics.
grpcurl -plaintext -d '{}' "$ADDR" tide.v1.Admin/DescribeCluster
grpcurl -plaintext -d '{"name":"greetings","partitions":1}' "$ADDR" tide.v1.Admin/CreateTopic || true
grpcurl -plaintext -d '{"topics":["greetings"]}' "$ADDR" tide.v1.Broker/Metadata

# Produce two records, read them back (one long-polling fetch), and the latest offset.
grpcurl -plaintext -d '{"topic":"greetings","partition":0,"records":[{"key":"dXNlci0x","value":"aGVsbG8="},{"value":"d29ybGQ="}]}' \
  "$ADDR" tide.v1.Broker/Produce
grpcurl -plaintext -d '{"topic":"greetings","partition":0,"offset":0,"max_wait_ms":1000}' "$ADDR" tide.v1.Broker/Fetch
grpcurl -plaintext -d '{"topic":"greetings","partition":0,"spec":"OFFSET_SPEC_LATEST"}' "$ADDR" tide.v1.Broker/ListOffsets
