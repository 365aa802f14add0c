#!/usr/bin/python3
"""A transaction from Python with stubs generated from protos/ (test/interop/interop.test.ts runs it).

Usage: tide_txn_interop.py STUB_DIR BOOTSTRAP TOPIC TRANSACTIONAL_ID

The call sequence of docs/protocol.md ("A transaction with the protos alone"), plain protobuf only:
creates TOPIC (2 partitions); asks the bootstrap broker which coordinator owns the transactional
id (FindTransactionCoordinator) and talks to it directly; InitTransactions; then a transaction
that commits and one that aborts, each a Produce of plain records to each partition's leader with
the portable `producer` identity (transactional, sequence 0 per partition for this epoch) and the
transactional id (the leader adds the partition to the transaction: no AddPartitionsToTxn), then
EndTxn (whose answer is the next transaction's epoch; the markers follow). Then waits for the
markers (DescribeTransaction: CompleteAbort) and reads both partitions with a read_committed
FetchStream in RECORD_FORMAT_RECORDS, up to the latest offset.
Prints one JSON object with what it saw; exits non-zero on failure.
"""
import json
import os
import sys
import time

STUB_DIR, BOOTSTRAP, TOPIC, TRANSACTIONAL_ID = sys.argv[1:5]
sys.path.insert(0, STUB_DIR)

import grpc  # noqa: E402
from tide.v1 import (  # noqa: E402
    admin_pb2,
    admin_pb2_grpc,
    broker_pb2,
    broker_pb2_grpc,
    common_pb2,
    transactions_pb2,
    transactions_pb2_grpc,
)

PARTITIONS = [0, 1]
TIMEOUT_S = float(os.environ.get("TIDE_INTEROP_TIMEOUT_S", "15"))
# Retriable while a coordinator loads or a previous transaction completes (docs/protocol.md).
RETRIABLE = {"CONCURRENT_TRANSACTIONS", "COORDINATOR_NOT_AVAILABLE", "COORDINATOR_LOAD_IN_PROGRESS"}


def tide_code(error):
    return dict(error.trailing_metadata() or ()).get("tide-error-code")


def with_retry(call):
    """Retries a call that fails with a retriable Tide error code, for up to TIMEOUT_S."""
    deadline = time.time() + TIMEOUT_S
    while True:
        try:
            return call()
        except grpc.RpcError as e:
            if tide_code(e) not in RETRIABLE or time.time() > deadline:
                raise
            time.sleep(0.1)


def main():
    bootstrap = grpc.insecure_channel(BOOTSTRAP)
    grpc.channel_ready_future(bootstrap).result(timeout=TIMEOUT_S)
    admin_pb2_grpc.AdminStub(bootstrap).CreateTopic(
        admin_pb2.CreateTopicRequest(name=TOPIC, partitions=len(PARTITIONS)), timeout=TIMEOUT_S
    )
    metadata = broker_pb2_grpc.BrokerStub(bootstrap).Metadata(
        broker_pb2.MetadataRequest(topics=[TOPIC]), timeout=TIMEOUT_S
    )
    address = {b.id: f"{b.host}:{b.port}" for b in metadata.brokers}
    leaders = {p.partition: address[p.leader] for p in metadata.topics[0].partitions}
    channels = {BOOTSTRAP: bootstrap}

    def channel(target):
        if target not in channels:
            channels[target] = grpc.insecure_channel(target)
        return channels[target]

    # 1. The coordinator of the transactional id (any broker also relays every call to it).
    found = with_retry(
        lambda: transactions_pb2_grpc.TransactionCoordinatorStub(bootstrap).FindTransactionCoordinator(
            transactions_pb2.FindTransactionCoordinatorRequest(transactional_id=TRANSACTIONAL_ID), timeout=TIMEOUT_S
        )
    )
    coordinator_address = f"{found.coordinator.host}:{found.coordinator.port}"
    coordinator = transactions_pb2_grpc.TransactionCoordinatorStub(channel(coordinator_address))

    # 2. InitTransactions: the producer id and the first epoch.
    init = with_retry(
        lambda: coordinator.InitTransactions(
            transactions_pb2.InitTransactionsRequest(transactional_id=TRANSACTIONAL_ID), timeout=TIMEOUT_S
        )
    )
    producer_id, epoch = init.producer_id, init.producer_epoch
    transactions = []
    for commit in [True, False]:
        label = "committed" if commit else "aborted"
        # 3. Produce plain records to each leader, with the transactional id: the broker builds a
        # transactional batch, and the leader adds the partition to the transaction first.
        produced = []
        for p in PARTITIONS:
            request = broker_pb2.ProduceRequest(
                topic=TOPIC,
                partition=p,
                acks=common_pb2.ACKS_ALL,
                records=[common_pb2.Record(value=f"{label}-{p}-{i}".encode()) for i in range(3)],
                producer=broker_pb2.PortableProducer(
                    producer_id=producer_id, producer_epoch=epoch, base_sequence=0, transactional=True
                ),
                transactional_id=TRANSACTIONAL_ID,
            )
            response = with_retry(
                lambda: broker_pb2_grpc.BrokerStub(channel(leaders[p])).Produce(request, timeout=TIMEOUT_S)
            )
            produced.append({"partition": p, "base_offset": response.base_offset, "last_offset": response.last_offset})
        # 4. EndTxn: commit or abort; its answer (once the end is decided) is the next epoch.
        ended = with_retry(
            lambda: coordinator.EndTxn(
                transactions_pb2.EndTxnRequest(
                    transactional_id=TRANSACTIONAL_ID, producer_id=producer_id, producer_epoch=epoch, commit=commit
                ),
                timeout=TIMEOUT_S,
            )
        )
        transactions.append(
            {"commit": commit, "epoch": epoch, "next_epoch": ended.producer_epoch, "produced": produced}
        )
        producer_id, epoch = ended.producer_id, ended.producer_epoch

    # 5. The markers follow EndTxn's answer: DescribeTransaction says Complete* once all are written.
    deadline = time.time() + TIMEOUT_S
    while not coordinator.DescribeTransaction(
        transactions_pb2.DescribeTransactionRequest(transactional_id=TRANSACTIONAL_ID), timeout=TIMEOUT_S
    ).transaction.state.startswith("Complete"):
        if time.time() > deadline:
            raise RuntimeError("the last transaction's markers were not written in time")
        time.sleep(0.05)

    # 6. read_committed, portable records: the committed records only, no control records.
    committed = {}
    latest = {}
    for p in PARTITIONS:
        broker = broker_pb2_grpc.BrokerStub(channel(leaders[p]))
        latest[p] = broker.ListOffsets(
            broker_pb2.ListOffsetsRequest(
                topic=TOPIC,
                partition=p,
                spec=broker_pb2.OFFSET_SPEC_LATEST,
                isolation=broker_pb2.ISOLATION_LEVEL_READ_COMMITTED,
            ),
            timeout=TIMEOUT_S,
        ).offset
        stream = broker.FetchStream(
            broker_pb2.FetchStreamRequest(
                positions=[broker_pb2.FetchPosition(topic=TOPIC, partition=p, offset=0)],
                format=common_pb2.RECORD_FORMAT_RECORDS,
                isolation=broker_pb2.ISOLATION_LEVEL_READ_COMMITTED,
            ),
            timeout=TIMEOUT_S,
        )
        values = []
        for response in stream:
            if response.HasField("error"):
                raise RuntimeError(f"fetch error {response.error.code}: {response.error.message}")
            values += [{"offset": r.offset, "value": r.value.decode()} for r in response.records]
            if response.next_offset >= latest[p]:
                stream.cancel()  # a fetch session runs until the client ends it
                break
        committed[p] = values

    print(
        json.dumps(
            {
                "coordinator": coordinator_address,
                "producer_id": init.producer_id,
                "transactions": transactions,
                "latest": latest,
                "committed": committed,
            }
        )
    )
    for c in channels.values():
        c.close()


if __name__ == "__main__":
    main()
