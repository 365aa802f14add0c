#!/usr/bin/env python3
"""Tide from Python: create a topic, produce, consume through a fetch stream, read metadata.

Generate the stubs first (see examples/README.md), then:

    python3 examples/python/produce_consume.py --bootstrap 127.0.0.1:9092 --topic greetings
"""
import argparse
import os
import sys

parser = argparse.ArgumentParser()
parser.add_argument("--bootstrap", default="127.0.0.1:9092")
parser.add_argument("--topic", default="greetings")
parser.add_argument("--stubs", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "gen"))
args = parser.parse_args()
sys.path.insert(0, args.stubs)

import grpc  # noqa: E402
from tide.v1 import admin_pb2, admin_pb2_grpc, broker_pb2, broker_pb2_grpc, common_pb2  # noqa: E402

channel = grpc.insecure_channel(args.bootstrap)
admin = admin_pb2_grpc.AdminStub(channel)
broker = broker_pb2_grpc.BrokerStub(channel)

# Admin: any broker takes it (and hands it to the controller).
try:
    admin.CreateTopic(admin_pb2.CreateTopicRequest(name=args.topic, partitions=1), timeout=10)
except grpc.RpcError as e:
    if dict(e.trailing_metadata() or ()).get("tide-error-code") != "TOPIC_ALREADY_EXISTS":
        raise

# Produce and fetch go to the partition's leader: find it in the metadata.
metadata = broker.Metadata(broker_pb2.MetadataRequest(topics=[args.topic]), timeout=10)
brokers = {b.id: f"{b.host}:{b.port}" for b in metadata.brokers}
leader = brokers[metadata.topics[0].partitions[0].leader]
print(f"cluster {metadata.cluster_id}: partition 0 of {args.topic} is led by {leader}")
leader_stub = broker_pb2_grpc.BrokerStub(grpc.insecure_channel(leader))

# Plain protobuf records: the broker builds the batch.
records = [common_pb2.Record(key=f"user-{i}".encode(), value=f"hello {i} from Python".encode()) for i in range(3)]
produced = leader_stub.Produce(
    broker_pb2.ProduceRequest(topic=args.topic, partition=0, acks=common_pb2.ACKS_ALL, records=records), timeout=10
)
print(f"produced offsets {produced.base_offset}..{produced.last_offset}")

# A fetch session pushes records as they are committed, until we cancel it.
stream = leader_stub.FetchStream(
    broker_pb2.FetchStreamRequest(
        positions=[broker_pb2.FetchPosition(topic=args.topic, partition=0, offset=produced.base_offset)]
    ),
    timeout=10,
)
received = 0
for response in stream:
    for record in response.records:
        print(f"offset {record.offset}: {record.key.decode()} = {record.value.decode()}")
        received += 1
    if received >= len(records):
        stream.cancel()
        break
