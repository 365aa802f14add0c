#!/usr/bin/python3
"""Calls Tide from Python with stubs generated from protos/ (test/interop/interop.test.ts runs it).

Usage: tide_interop.py STUB_DIR BOOTSTRAP TOPIC [CA_FILE [CERT_FILE KEY_FILE]]

With CA_FILE every channel is TLS, trusting that CA; CERT_FILE and KEY_FILE add a client
certificate (mTLS).

Creates TOPIC (2 partitions) through Admin, produces plain protobuf records to each partition's
leader (found through Metadata), reads them back through one FetchStream, reads the offsets, and
checks an error's Tide trailers. Prints one JSON object with what it saw; exits non-zero on failure.
"""
import json
import os
import sys
import time

STUB_DIR, BOOTSTRAP, TOPIC = sys.argv[1:4]
CA_FILE, CERT_FILE, KEY_FILE = (sys.argv[4:7] + [None, None, None])[:3]
sys.path.insert(0, STUB_DIR)

import grpc  # noqa: E402
from tide.v1 import admin_pb2, admin_pb2_grpc, broker_pb2, broker_pb2_grpc, common_pb2  # noqa: E402

PARTITIONS = 2
PER_PARTITION = 5
# How long to wait for a channel and each call (TIDE_INTEROP_TIMEOUT_S; the tests shorten it for calls meant to fail).
TIMEOUT_S = float(os.environ.get("TIDE_INTEROP_TIMEOUT_S", "15"))


def text(record, field):
    """A record's key or value as text, or None when absent (null)."""
    return getattr(record, field).decode() if record.HasField(field) else None


def read(path):
    with open(path, "rb") as f:
        return f.read()


def open_channel(target):
    """Plain text, or TLS trusting CA_FILE (with a client certificate when given)."""
    if not CA_FILE:
        return grpc.insecure_channel(target)
    credentials = grpc.ssl_channel_credentials(
        root_certificates=read(CA_FILE),
        private_key=read(KEY_FILE) if KEY_FILE else None,
        certificate_chain=read(CERT_FILE) if CERT_FILE else None,
    )
    return grpc.secure_channel(target, credentials)


def main():
    bootstrap = open_channel(BOOTSTRAP)
    grpc.channel_ready_future(bootstrap).result(timeout=TIMEOUT_S)
    admin = admin_pb2_grpc.AdminStub(bootstrap)

    created = admin.CreateTopic(
        admin_pb2.CreateTopicRequest(name=TOPIC, partitions=PARTITIONS, configs={"retention.ms": "86400000"}),
        timeout=TIMEOUT_S,
    )

    # Route each partition to its leader, as any Tide client does.
    metadata = broker_pb2_grpc.BrokerStub(bootstrap).Metadata(
        broker_pb2.MetadataRequest(topics=[TOPIC]), timeout=TIMEOUT_S
    )
    address = {b.id: f"{b.host}:{b.port}" for b in metadata.brokers}
    leaders = {p.partition: p.leader for p in metadata.topics[0].partitions}
    channels = {}

    def broker_for(partition):
        target = address[leaders[partition]]
        if target not in channels:
            channels[target] = open_channel(target)
        return broker_pb2_grpc.BrokerStub(channels[target])

    produced = []
    for p in range(PARTITIONS):
        records = [
            common_pb2.Record(
                key=f"py-{p}-{i}".encode(),
                value=f"python says {i} to partition {p}".encode(),
                headers=[common_pb2.RecordHeader(key="lang", value=b"python")],
            )
            for i in range(PER_PARTITION - 2)
        ]
        # Null key with an empty value; a key with a null value (a tombstone).
        records.append(common_pb2.Record(value=b""))
        records.append(common_pb2.Record(key=f"py-{p}-gone".encode()))
        response = broker_for(p).Produce(
            broker_pb2.ProduceRequest(topic=TOPIC, partition=p, acks=common_pb2.ACKS_ALL, records=records),
            timeout=TIMEOUT_S,
        )
        produced.append({"partition": p, "base_offset": response.base_offset, "last_offset": response.last_offset})

    # One fetch session per leader, over the partitions it leads.
    consumed = []
    by_leader = {}
    for p in range(PARTITIONS):
        by_leader.setdefault(leaders[p], []).append(p)
    for partitions in by_leader.values():
        stream = broker_for(partitions[0]).FetchStream(
            broker_pb2.FetchStreamRequest(
                positions=[broker_pb2.FetchPosition(topic=TOPIC, partition=p, offset=0) for p in partitions],
                format=common_pb2.RECORD_FORMAT_RECORDS,
            ),
            timeout=TIMEOUT_S,
        )
        seen = 0
        for response in stream:
            if response.HasField("error"):
                raise RuntimeError(f"fetch error {response.error.code}: {response.error.message}")
            for r in response.records:
                seen += 1
                consumed.append(
                    {
                        "partition": response.partition,
                        "offset": r.offset,
                        "key": text(r, "key"),
                        "value": text(r, "value"),
                        "headers": {h.key: h.value.decode() for h in r.headers},
                        "timestamp_ms": r.timestamp_ms,
                    }
                )
            if seen >= len(partitions) * PER_PARTITION:
                stream.cancel()  # a fetch session runs until the client ends it
                break

    latest = {}
    for p in range(PARTITIONS):
        offsets = broker_for(p).ListOffsets(
            broker_pb2.ListOffsetsRequest(topic=TOPIC, partition=p, spec=broker_pb2.OFFSET_SPEC_LATEST),
            timeout=TIMEOUT_S,
        )
        latest[p] = offsets.offset

    # Errors: a gRPC status plus the tide-error-code and tide-retriable trailers.
    error = None
    try:
        broker_for(0).Produce(
            broker_pb2.ProduceRequest(topic=TOPIC + "-missing", partition=0, records=[common_pb2.Record(value=b"x")]),
            timeout=TIMEOUT_S,
        )
    except grpc.RpcError as e:
        trailers = dict(e.trailing_metadata() or ())
        error = {
            "status": e.code().name,
            "tide_error_code": trailers.get("tide-error-code"),
            "tide_retriable": trailers.get("tide-retriable"),
        }

    cluster = admin.DescribeCluster(admin_pb2.DescribeClusterRequest(), timeout=TIMEOUT_S)
    print(
        json.dumps(
            {
                "created": {"name": created.topic.name, "partitions": len(created.topic.partitions)},
                "produced": produced,
                "consumed": consumed,
                "latest": latest,
                "error": error,
                "metadata": {
                    "cluster_id": cluster.cluster_id,
                    "brokers": [{"id": b.id, "address": f"{b.host}:{b.port}"} for b in cluster.brokers],
                    "partitions": [
                        {"partition": p.partition, "leader": p.leader, "replicas": list(p.replicas)}
                        for p in metadata.topics[0].partitions
                    ],
                },
                "now_ms": int(time.time() * 1000),
            }
        )
    )
    for channel in [bootstrap, *channels.values()]:
        channel.close()


if __name__ == "__main__":
    main()
