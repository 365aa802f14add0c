#!/usr/bin/ruby
# frozen_string_literal: true

# Calls Tide from Ruby with stubs generated from protos/ (test/interop/interop.test.ts runs it).
#
# Usage: tide_interop.rb STUB_DIR BOOTSTRAP TOPIC [CA_FILE [CERT_FILE KEY_FILE]]
#
# With CA_FILE every channel is TLS, trusting that CA; CERT_FILE and KEY_FILE add a client
# certificate (mTLS).
#
# Creates TOPIC (2 partitions) through Admin, produces plain protobuf records to each partition's
# leader (found through Metadata), reads them back through a FetchStream per leader, reads the
# offsets, and checks an error's Tide trailers. Prints one JSON object with what it saw.

stub_dir, bootstrap, topic, ca_file, cert_file, key_file = ARGV
$LOAD_PATH.unshift(stub_dir)

require 'json'
require 'grpc'
require 'tide/v1/admin_services_pb'
require 'tide/v1/broker_services_pb'

PARTITIONS = 2
PER_PARTITION = 5
TIMEOUT_S = 15
V1 = Tide::V1

def deadline
  Time.now + TIMEOUT_S
end

# A record's key or value as text, or nil when absent (null).
def text(record, field)
  record.public_send("has_#{field}?") ? record.public_send(field).dup.force_encoding('UTF-8') : nil
end

# Plain text, or TLS trusting ca_file (with a client certificate when given).
credentials =
  if ca_file
    client = cert_file ? [File.read(key_file), File.read(cert_file)] : []
    GRPC::Core::ChannelCredentials.new(File.read(ca_file), *client)
  else
    :this_channel_is_insecure
  end

admin = V1::Admin::Stub.new(bootstrap, credentials)
created = admin.create_topic(V1::CreateTopicRequest.new(name: topic, partitions: PARTITIONS), deadline: deadline)

# Route each partition to its leader, as any Tide client does.
metadata = V1::Broker::Stub.new(bootstrap, credentials)
                           .metadata(V1::MetadataRequest.new(topics: [topic]), deadline: deadline)
address = metadata.brokers.to_h { |b| [b.id, "#{b.host}:#{b.port}"] }
leaders = metadata.topics.first.partitions.to_h { |p| [p.partition, p.leader] }
stubs = {}
broker_for = lambda do |partition|
  target = address.fetch(leaders.fetch(partition))
  stubs[target] ||= V1::Broker::Stub.new(target, credentials)
end

produced = (0...PARTITIONS).map do |p|
  records = (0...(PER_PARTITION - 2)).map do |i|
    V1::Record.new(key: "rb-#{p}-#{i}", value: "ruby says #{i} to partition #{p}",
                   headers: [V1::RecordHeader.new(key: 'lang', value: 'ruby')])
  end
  records << V1::Record.new(value: '') # null key, empty value
  records << V1::Record.new(key: "rb-#{p}-gone") # a tombstone: null value
  response = broker_for.call(p).produce(
    V1::ProduceRequest.new(topic: topic, partition: p, acks: :ACKS_ALL, records: records), deadline: deadline
  )
  { partition: p, base_offset: response.base_offset, last_offset: response.last_offset }
end

# One fetch session per leader, over the partitions it leads.
consumed = []
(0...PARTITIONS).group_by { |p| leaders[p] }.each_value do |partitions|
  op = broker_for.call(partitions.first).fetch_stream(
    V1::FetchStreamRequest.new(
      positions: partitions.map { |p| V1::FetchPosition.new(topic: topic, partition: p, offset: 0) },
      format: :RECORD_FORMAT_RECORDS
    ),
    return_op: true, deadline: deadline
  )
  seen = 0
  op.execute.each do |response|
    raise "fetch error #{response.error.code}: #{response.error.message}" if response.error

    response.records.each do |r|
      seen += 1
      consumed << {
        partition: response.partition, offset: r.offset, key: text(r, 'key'), value: text(r, 'value'),
        headers: r.headers.to_h { |h| [h.key, h.value.dup.force_encoding('UTF-8')] }, timestamp_ms: r.timestamp_ms
      }
    end
    break if seen >= partitions.size * PER_PARTITION
  end
  op.cancel # a fetch session runs until the client ends it
end

latest = (0...PARTITIONS).to_h do |p|
  r = broker_for.call(p).list_offsets(
    V1::ListOffsetsRequest.new(topic: topic, partition: p, spec: :OFFSET_SPEC_LATEST), deadline: deadline
  )
  [p, r.offset]
end

# Errors: a gRPC status plus the tide-error-code and tide-retriable trailers.
error = nil
begin
  broker_for.call(0).produce(
    V1::ProduceRequest.new(topic: "#{topic}-missing", partition: 0, records: [V1::Record.new(value: 'x')]),
    deadline: deadline
  )
rescue GRPC::BadStatus => e
  error = { status: e.class.name.split('::').last, tide_error_code: e.metadata['tide-error-code'],
            tide_retriable: e.metadata['tide-retriable'] }
end

cluster = admin.describe_cluster(V1::DescribeClusterRequest.new, deadline: deadline)
puts JSON.generate(
  created: { name: created.topic.name, partitions: created.topic.partitions.size },
  produced: produced,
  consumed: consumed,
  latest: latest,
  error: error,
  metadata: {
    cluster_id: cluster.cluster_id,
    brokers: cluster.brokers.map { |b| { id: b.id, address: "#{b.host}:#{b.port}" } },
    partitions: metadata.topics.first.partitions.map do |p|
      { partition: p.partition, leader: p.leader, replicas: p.replicas.to_a }
    end
  }
)
