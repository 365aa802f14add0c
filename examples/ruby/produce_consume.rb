#!/usr/bin/env ruby
# frozen_string_literal: true

# Tide from Ruby: create a topic, produce, consume through a fetch stream, read metadata.
#
# Generate the stubs first (see examples/README.md), then:
#
#   ruby examples/ruby/produce_consume.rb --bootstrap 127.0.0.1:9092 --topic greetings

require 'optparse'

options = { bootstrap: '127.0.0.1:9092', topic: 'greetings', stubs: File.join(__dir__, 'gen') }
OptionParser.new do |o|
  o.on('--bootstrap ADDRESS') { |v| options[:bootstrap] = v }
  o.on('--topic NAME') { |v| options[:topic] = v }
  o.on('--stubs DIR') { |v| options[:stubs] = v }
end.parse!
$LOAD_PATH.unshift(options[:stubs])

require 'grpc'
require 'tide/v1/admin_services_pb'
require 'tide/v1/broker_services_pb'

V1 = Tide::V1
topic = options[:topic]
admin = V1::Admin::Stub.new(options[:bootstrap], :this_channel_is_insecure)
broker = V1::Broker::Stub.new(options[:bootstrap], :this_channel_is_insecure)

# Admin: any broker takes it (and hands it to the controller).
begin
  admin.create_topic(V1::CreateTopicRequest.new(name: topic, partitions: 1), deadline: Time.now + 10)
rescue GRPC::AlreadyExists
  # created by an earlier run
end

# Produce and fetch go to the partition's leader: find it in the metadata.
metadata = broker.metadata(V1::MetadataRequest.new(topics: [topic]), deadline: Time.now + 10)
leader_id = metadata.topics.first.partitions.first.leader
leader = metadata.brokers.find { |b| b.id == leader_id }
puts "cluster #{metadata.cluster_id}: partition 0 of #{topic} is led by #{leader.host}:#{leader.port}"
leader_stub = V1::Broker::Stub.new("#{leader.host}:#{leader.port}", :this_channel_is_insecure)

# Plain protobuf records: the broker builds the batch.
records = (0...3).map { |i| V1::Record.new(key: "user-#{i}", value: "hello #{i} from Ruby") }
produced = leader_stub.produce(
  V1::ProduceRequest.new(topic: topic, partition: 0, acks: :ACKS_ALL, records: records), deadline: Time.now + 10
)
puts "produced offsets #{produced.base_offset}..#{produced.last_offset}"

# A fetch session pushes records as they are committed, until we cancel it.
op = leader_stub.fetch_stream(
  V1::FetchStreamRequest.new(positions: [V1::FetchPosition.new(topic: topic, partition: 0,
                                                               offset: produced.base_offset)]),
  return_op: true, deadline: Time.now + 10
)
received = 0
op.execute.each do |response|
  response.records.each do |record|
    puts "offset #{record.offset}: #{record.key} = #{record.value}"
    received += 1
  end
  break if received >= records.size
end
op.cancel
