#!/bin/sh
# Runs node with the glibc malloc settings and the V8 settings Tide's processes are measured with
# (docs/performance.md).
#
# grpc-js gives every gRPC message a fresh buffer: 1 MiB producer batches and fetch responses are
# copied into new memory on both sides of a connection. With glibc's defaults, memory freed at the
# top of the heap goes back to the kernel at once, so each new message page-faults it in again:
# copying 1 MiB into fresh memory took 0.69 ms with the defaults and 0.10 ms with these settings
# (on the 2-core CI machine). Allocations up to 4 MiB stay on the heap, and up to 64 MiB of freed
# memory stays mapped per malloc arena (resident memory can stay that much above what is in use;
# most of Tide's lives in the main arena). Values already in the environment win; other C
# libraries (musl) and other allocators (Go's, jemalloc) ignore them.
#
# --heap-growing-percent=300: V8 lets the old generation grow to 4x its live size between full
# collections instead of the few MB it grants a small heap whose garbage is mostly Buffers; without
# it a consumer ran a full collection every ~15 MB read and a broker could fall into one every
# 50-200 ms (services/common/gc-tuning.ts, which Tide's services also apply when started without
# this script). To use another value, pass your own --heap-growing-percent before the script path
# (the last one wins).
#
# --initial-old-space-size: V8 starts a full (mark-compact) collection when the old generation plus
# the Buffer memory allocated since the last one comes near a limit that it sets only ~10-25 MB
# above a small heap (Tide's is ~20 MB) when little JavaScript is allocated, which is what a broker
# moving bytes does: each MiB served or received is one to three new Buffers. Copying a partition
# at 16 MiB/s, the leader and the new replica each ran a full collection every 0.2-0.5 s (143 and
# 113 during one 69 s move; trace-gc "finalize incremental marking via task"), and their pauses and
# helper threads were what stretched produce p99 on two cores (docs/operations.md, "Throttling
# moves"). The limit never goes below this floor: with 128 MiB the same move ran 2 and 0. The cost
# is up to that much garbage before a first full collection (a broker's resident memory rose by
# ~50 MB in that move).
set -eu
export MALLOC_MMAP_THRESHOLD_="${MALLOC_MMAP_THRESHOLD_:-4194304}"
export MALLOC_TRIM_THRESHOLD_="${MALLOC_TRIM_THRESHOLD_:-67108864}"
exec node --heap-growing-percent=300 --initial-old-space-size=128 "$@"
